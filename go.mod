module github.com/isaacgo/isaac

go 1.26
