package predictor

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/isaacgo/isaac/ptx"
)

func parse(t *testing.T, s string) ptx.GemmConfig {
	t.Helper()
	c, err := ptx.ParseConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// encodeRaw encodes w, lets edit change the uncompressed bytes, and
// compresses them again.
func encodeRaw(out io.Writer, edit func([]byte) []byte, w *Weights) error {
	var buf bytes.Buffer
	if err := Encode(&buf, w); err != nil {
		return err
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return err
	}
	raw, err := dec.DecodeAll(buf.Bytes(), nil)
	dec.Close()
	if err != nil {
		return err
	}
	enc, err := zstd.NewWriter(out)
	if err != nil {
		return err
	}
	enc.Write(edit(raw))
	return enc.Close()
}
