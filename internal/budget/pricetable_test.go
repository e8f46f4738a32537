package budget

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPriceTableRows: every row is complete, says where it comes from with a
// date (or that it is unverified), and no id or alias names two rows.
func TestPriceTableRows(t *testing.T) {
	t.Parallel()
	dated := regexp.MustCompile(`20[0-9][0-9]`)
	seen := map[string]string{}
	for _, r := range builtinPrices {
		if r.Model == "" || !(r.Input > 0) || !(r.Output > 0) || !(r.CachedInput > 0) || r.CachedInput > r.Input {
			t.Errorf("%q: prices %v/%v/%v", r.Model, r.Input, r.CachedInput, r.Output)
		}
		if !dated.MatchString(r.Source) && !strings.Contains(r.Source, "unverified") {
			t.Errorf("%q: source %q has no date and does not say it is unverified", r.Model, r.Source)
		}
		for _, id := range append([]string{r.Model}, r.Aliases...) {
			k := strings.ToLower(id)
			if prev, dup := seen[k]; dup {
				t.Errorf("%q names both %q and %q", id, prev, r.Model)
			}
			seen[k] = r.Model
			if got := LookupPrice(id); got == nil || got.Model != r.Model {
				t.Errorf("LookupPrice(%q) = %v, want row %q", id, got, r.Model)
			}
		}
	}
	if len(builtinPrices) < 40 {
		t.Errorf("only %d rows", len(builtinPrices))
	}
}

func TestLookupPrice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ id, want string }{
		{"gpt-4o-mini", "gpt-4o-mini"},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
		{"GPT-4o-Mini", "gpt-4o-mini"},
		{"openai/gpt-4o-mini", "gpt-4o-mini"},
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"gpt-4o-2024-05-13", "gpt-4o-2024-05-13"}, // its own, higher price
		{"o3-2025-04-16", "o3"},
		{"anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4-0"},
		{"claude-opus-4-1-20250805", "claude-opus-4-1"},
		{"claude-3-5-haiku-latest", "claude-3-5-haiku"},
		{"claude-haiku-4-5@20251001", "claude-haiku-4-5"},
		{"grok-4-0709", "grok-4"},
		{"x-ai/grok-code-fast-1", "grok-code-fast-1"},
		{"gemini-2.0-flash-001", "gemini-2.0-flash"},
		{"gemini-2.5-flash-preview-05-20", "gemini-2.5-flash"},
		{"google/gemini-2.5-pro", "gemini-2.5-pro"},
		{"gemini-3-pro-preview", "gemini-3-pro"},
		{"deepseek/deepseek-chat", "deepseek-chat"},
		{"mistral-large-2411", "mistral-large-latest"},
		{"mistralai/mistral-small-latest", "mistral-small-latest"},
	} {
		if r := LookupPrice(tc.id); r == nil || r.Model != tc.want {
			t.Errorf("LookupPrice(%q) = %v, want %q", tc.id, r, tc.want)
		}
	}
	// Not in the table: other families, local models, free router variants,
	// and suffixes that are not snapshots.
	for _, id := range []string{"", "gpt-4", "gpt-4-0613", "gpt-3.5-turbo-0125", "o1", "qwen3:8b", "llama3.1:8b",
		"openai/gpt-5:free", "-2024-07-18", "gpt-4o-mini-x", "claude-opus-4-7", "gpt-5.4-mini-2", "/", "a/b/c"} {
		if r := LookupPrice(id); r != nil {
			t.Errorf("LookupPrice(%q) = %q, want none", id, r.Model)
		}
	}
}

// TestResolvePricesPrecedence: model_prices beats the flat pair, which
// beats the built-in table; a cached price follows its input price.
func TestResolvePricesPrecedence(t *testing.T) {
	t.Parallel()
	table := Prices{InputPerMillionUSD: 0.15, CachedInputPerMillionUSD: 0.075, OutputPerMillionUSD: 0.60}
	for _, tc := range []struct {
		name string
		flat Prices
		per  map[string]ModelPrice
		want Prices
	}{
		{"table", Prices{}, nil, table},
		{"flat input", Prices{InputPerMillionUSD: 1}, nil, Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 0.60}},
		{"flat both", Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}, nil, Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}},
		{"model_prices output", Prices{}, map[string]ModelPrice{"gpt-4o-mini-2024-07-18": {OutputPerMillionUSD: f64(9)}},
			Prices{InputPerMillionUSD: 0.15, CachedInputPerMillionUSD: 0.075, OutputPerMillionUSD: 9}},
		{"model_prices input drops the table's cached", Prices{}, map[string]ModelPrice{"gpt-4o-mini-2024-07-18": {InputPerMillionUSD: f64(2)}},
			Prices{InputPerMillionUSD: 2, OutputPerMillionUSD: 0.60}},
		{"model_prices cached", Prices{}, map[string]ModelPrice{"gpt-4o-mini-2024-07-18": {InputPerMillionUSD: f64(2), CachedInputPerMillionUSD: f64(0.5)}},
			Prices{InputPerMillionUSD: 2, CachedInputPerMillionUSD: 0.5, OutputPerMillionUSD: 0.60}},
		{"model_prices zero unprices", Prices{}, map[string]ModelPrice{"gpt-4o-mini-2024-07-18": {InputPerMillionUSD: f64(0)}},
			Prices{OutputPerMillionUSD: 0.60}},
	} {
		if got := ResolvePrices("gpt-4o-mini-2024-07-18", tc.flat, tc.per); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestCachedAndReportedCost: cache reads cost the cached price, cache writes
// the input price; a provider-reported cost replaces the computed one for
// its response.
func TestCachedAndReportedCost(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	tr := New(Options{Prices: Prices{InputPerMillionUSD: 1, CachedInputPerMillionUSD: 0.1, OutputPerMillionUSD: 4}, Start: t0})
	// 1M fresh ($1) + 1M written ($1) + 10M read ($1) + 1M out ($4) = $7
	_ = tr.AddUsage(Usage{InputTokens: 1_000_000, CacheCreationTokens: 1_000_000, CacheReadTokens: 10_000_000, OutputTokens: 1_000_000})
	if got := tr.Snapshot().CostMicroUSD; got != 7_000_000 {
		t.Fatalf("cost = %d µ$, want 7000000", got)
	}
	_ = tr.AddUsage(Usage{InputTokens: 5_000_000, OutputTokens: 5_000_000, CostUSD: 0.25, CostReported: true})
	s := tr.Snapshot()
	if s.CostMicroUSD != 7_250_000 || s.InputTokens != 17_000_000 {
		t.Fatalf("cost = %d µ$, input %d", s.CostMicroUSD, s.InputTokens)
	}
	// Without a cached price, reads cost the input price.
	tr = New(Options{Prices: Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, Start: t0})
	_ = tr.AddUsage(Usage{CacheReadTokens: 1_000_000})
	if got := tr.Snapshot().CostMicroUSD; got != 1_000_000 {
		t.Fatalf("cost = %d µ$, want 1000000", got)
	}
	// Unpriced, a reported cost still makes the run's cost known.
	tr = New(Options{Start: t0})
	_ = tr.AddUsage(Usage{InputTokens: 10, CostUSD: 0.001, CostReported: true})
	if s := tr.Snapshot(); !s.Priced || s.CostMicroUSD != 1000 {
		t.Fatalf("%+v", s)
	}
	// A negative or NaN report counts as nothing.
	_ = tr.AddUsage(Usage{CostUSD: -5, CostReported: true})
	if s := tr.Snapshot(); s.CostMicroUSD != 1000 {
		t.Fatalf("%+v", s)
	}
}

func BenchmarkLookupPrice(b *testing.B) {
	for range b.N {
		if LookupPrice("openai/gpt-4o-mini-2024-07-18") == nil {
			b.Fatal("no row")
		}
	}
}
