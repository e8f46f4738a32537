package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
)

// scanChunk is how much scan reads at a time.
const scanChunk = 64 << 10

// errSizeChanged is wrapped when a file did not hold the bytes it was
// measured to hold while it was being read.
var errSizeChanged = errors.New("file size changed while being read")

// scan reads r from its start in one pass, hashing every byte and copying
// bytes [off, off+n) into page, so the bytes served are the bytes hashed. It
// fails when r does not hold exactly size bytes (it grew or shrank while
// being read); a file that grows is noticed within one chunk past size. ctx
// is checked between chunks.
func scan(ctx context.Context, r io.ReaderAt, size, off, n int64) (sum string, page []byte, err error) {
	h := sha256.New()
	buf := make([]byte, scanChunk)
	var pos int64
	for {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		k, rerr := r.ReadAt(buf, pos)
		if pos+int64(k) > size {
			return "", nil, sizeChanged(pos+int64(k), size)
		}
		chunk := buf[:k]
		h.Write(chunk)
		page = appendRange(page, chunk, pos, off, off+n)
		pos += int64(k)
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return "", nil, rerr
		}
	}
	if pos != size {
		return "", nil, sizeChanged(pos, size)
	}
	return hex.EncodeToString(h.Sum(nil)), page, nil
}

func sizeChanged(read, want int64) error {
	return withSentinel(errSizeChanged, "%d bytes read, %d expected", read, want)
}

// appendRange appends the part of chunk (which starts at byte pos) that lies
// in [lo, hi).
func appendRange(page, chunk []byte, pos, lo, hi int64) []byte {
	from, to := max(pos, lo), min(pos+int64(len(chunk)), hi)
	if from < to {
		page = append(page, chunk[from-pos:to-pos]...)
	}
	return page
}
