module github.com/isaacgo/isaac

go 1.26

require github.com/klauspost/compress v1.20.3

require gonum.org/v1/gonum v0.17.0 // indirect
