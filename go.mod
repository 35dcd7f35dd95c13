module github.com/isaacgo/isaac

go 1.26.0

require (
	github.com/klauspost/compress v1.20.3
	golang.org/x/sys v0.49.0
	gonum.org/v1/gonum v0.17.0
)
