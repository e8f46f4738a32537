package budget

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/PRICES.md's generated table")

const (
	priceBegin = "<!-- BEGIN GENERATED: go test ./internal/budget -run TestPriceDoc -update -->\n"
	priceEnd   = "<!-- END GENERATED -->"
)

// TestPriceDoc keeps docs/PRICES.md's table equal to the built-in one.
func TestPriceDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "PRICES.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := bytes.Index(doc, []byte(priceBegin)), bytes.Index(doc, []byte(priceEnd))
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the generated-table markers", path)
	}
	want := priceReference()
	if got := string(doc[begin+len(priceBegin) : end]); got == want {
		return
	}
	if *update {
		out := append(append(append([]byte{}, doc[:begin+len(priceBegin)]...), want...), doc[end:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run go test ./internal/budget -run TestPriceDoc -update", path)
}

func priceReference() string {
	var b strings.Builder
	b.WriteString("| model | also matches | input | cached input | output | source |\n|---|---|---|---|---|---|\n")
	for _, r := range builtinPrices {
		aliases := make([]string, len(r.Aliases))
		for i, a := range r.Aliases {
			aliases[i] = "`" + a + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", r.Model, strings.Join(aliases, ", "),
			usd(r.Input), usd(r.CachedInput), usd(r.Output), strings.ReplaceAll(r.Source, "|", "/"))
	}
	return b.String()
}

func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', -1, 64) }
