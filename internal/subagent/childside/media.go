package childside

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// mediaTypes maps the extensions children commonly write; a fixed table, so
// the result does not depend on the machine's mime.types.
var mediaTypes = map[string]string{
	".txt": "text/plain", ".log": "text/plain", ".md": "text/markdown", ".csv": "text/csv",
	".tsv": "text/tab-separated-values", ".json": "application/json", ".jsonl": "application/x-ndjson",
	".xml": "application/xml", ".html": "text/html", ".yaml": "text/yaml", ".yml": "text/yaml",
	".diff": "text/x-diff", ".patch": "text/x-diff", ".go": "text/x-go", ".py": "text/x-python",
	".sh": "text/x-shellscript", ".js": "text/javascript", ".ts": "text/x-typescript",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".svg": "image/svg+xml", ".pdf": "application/pdf", ".zip": "application/zip",
	".gz": "application/gzip", ".tar": "application/x-tar",
}

// mediaType names a staged file's type: by extension from a fixed table,
// else by sniffing its first 512 bytes (text becomes text/plain, anything
// else application/octet-stream).
func mediaType(name, path string) string {
	if t, ok := mediaTypes[strings.ToLower(filepath.Ext(name))]; ok {
		return t
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	if t := http.DetectContentType(buf[:n]); strings.HasPrefix(t, "text/plain") {
		return "text/plain"
	}
	return "application/octet-stream"
}
