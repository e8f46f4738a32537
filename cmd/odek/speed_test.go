package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/testbin"
)

// Limits of the speed contract (issue 23), as ratios to the floor
// (testdata/bench/bareloop) measured in the same run where there is one.
const (
	limitStartup     = 1.3  // exec to first LLM request, × floor
	limitPerIter     = 1.6  // overhead per iteration at 20 iterations, × floor
	limitRSSMiB      = 13.0 // peak RSS of the 20-iteration run
	limitInitMS      = 1.0  // all package initializers of one process
	limitEventsRatio = 1.1  // wall of a run with --events-jsonl, × without
)

// speedRounds is how many times each measurement is repeated (the median
// is reported); ODEK_SPEED_ROUNDS overrides it.
func speedRounds() int {
	if n, err := strconv.Atoi(os.Getenv("ODEK_SPEED_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 9
}

// speedSample is one round of every measurement.
type speedSample struct {
	start, bareStart     time.Duration // exec to first request
	perIter, barePerIter time.Duration // per iteration, 20 iterations, LLM time left out
	respPerIter          time.Duration // the same on the Responses wire (--wire-api responses)
	wall, wallEvents     time.Duration // whole 20-iteration run, events off and on
	rssKiB, bareRSSKiB   int64
	initMS               float64
	// the same figures of ODEK_SPEED_BASELINE (another odek binary), if set
	baseStart, basePerIter time.Duration
	baseRSSKiB             int64
	baseInitMS             float64
}

// BenchmarkSpeedGoals measures every goal of the speed contract side by
// side with the floor, odek and the bare loop alternating in each round so
// that a busy machine slows both alike, and prints each figure beside its
// limit with the load average. The per-request encoding goal is
// internal/llm BenchmarkRequestEncoding's. ODEK_SPEED_BASELINE names another
// odek binary (an older build) to measure in the same rounds, for A/B.
func BenchmarkSpeedGoals(b *testing.B) {
	odek := testbin.Release(b, "odek", "./cmd/odek")
	wc := testbin.Release(b, "wordcount", "./testdata/demo/wordcount")
	bare := testbin.Release(b, "bareloop", "./testdata/bench/bareloop")
	home := b.TempDir()
	cfg := fmt.Sprintf(`{"mcp_servers": {"demo": {"command": %q, "auto_approve": true}}}`, wc)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	run := []string{odek, "run", "-q", "task"}
	events := filepath.Join(b.TempDir(), "ev.jsonl")
	var samples []speedSample
	for b.Loop() {
		for range speedRounds() {
			samples = append(samples, speedRound(b, run, []string{bare}, home, events, odek))
		}
	}
	g := speedGoals(samples)
	b.ReportMetric(g.startRatio, "x-floor-startup")
	b.ReportMetric(g.iterRatio, "x-floor-per-iter")
	b.ReportMetric(g.respIterRatio, "x-floor-per-iter-responses")
	b.ReportMetric(g.rssMiB, "MiB-maxrss")
	b.ReportMetric(g.initMS, "init-ms")
	b.ReportMetric(g.eventsRatio, "x-events-on")
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("speed goals, medians of %d rounds (load average %s):\n%s", len(samples), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "), g.table())
}

func speedRound(b *testing.B, run, bare []string, home, events, odek string) speedSample {
	var s speedSample
	s.start = runAgainst(b, run, home, answerScript(0), false).firstRequest
	s.bareStart = runAgainst(b, bare, home, answerScript(0), false).firstRequest
	s.perIter, s.wall = perIteration(b, run, home)
	s.barePerIter, _ = perIteration(b, bare, home)
	s.respPerIter, _ = perIteration(b, append(slices.Clone(run[:len(run)-1]), "--wire-api", "responses", run[len(run)-1]), home)
	_ = os.Remove(events)
	_, s.wallEvents = perIteration(b, append(slices.Clone(run), "--events-jsonl", events), home)
	s.rssKiB = runAgainst(b, run, home, answerScript(19), true).rssKiB
	s.bareRSSKiB = runAgainst(b, bare, home, answerScript(19), true).rssKiB
	s.initMS = initTrace(b, odek)
	if base := os.Getenv("ODEK_SPEED_BASELINE"); base != "" {
		brun := []string{base, "run", "-q", "task"}
		s.baseStart = runAgainst(b, brun, home, answerScript(0), false).firstRequest
		s.basePerIter, _ = perIteration(b, brun, home)
		s.baseRSSKiB = runAgainst(b, brun, home, answerScript(19), true).rssKiB
		s.baseInitMS = initTrace(b, base)
	}
	return s
}

// perIteration runs 20 iterations (19 MCP calls, then an answer) and
// returns the time per iteration from the first request to exit, less the
// fake LLM's own time, and the wall time of the whole run.
func perIteration(b *testing.B, argv []string, home string) (per, wall time.Duration) {
	start := time.Now()
	r := runAgainst(b, argv, home, answerScript(19), false)
	wall = time.Since(start)
	return (wall - r.firstRequest - r.serverTime) / 20, wall
}

func initTrace(b *testing.B, odek string) float64 {
	c, _, _ := versionInitTrace(b, odek)
	return c
}

type goals struct {
	start, bareStart, iter, bareIter time.Duration
	startRatio, iterRatio            float64
	respIter                         time.Duration // the Responses wire's per iteration
	respIterRatio                    float64
	rssMiB, bareRSSMiB               float64
	initMS                           float64
	wall, wallEvents                 time.Duration
	eventsRatio                      float64
	baseStart, baseIter              time.Duration
	baseRSSMiB, baseInitMS           float64
}

func speedGoals(ss []speedSample) goals {
	med := func(f func(speedSample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		if len(v) == 0 {
			return 0
		}
		return v[len(v)/2]
	}
	d := func(f func(speedSample) time.Duration) time.Duration {
		return time.Duration(med(func(s speedSample) float64 { return float64(f(s)) }))
	}
	return goals{
		start: d(func(s speedSample) time.Duration { return s.start }), bareStart: d(func(s speedSample) time.Duration { return s.bareStart }),
		iter: d(func(s speedSample) time.Duration { return s.perIter }), bareIter: d(func(s speedSample) time.Duration { return s.barePerIter }),
		// ratios are medians of each round's ratio: both sides of a round share its load
		startRatio:    med(func(s speedSample) float64 { return float64(s.start) / float64(s.bareStart) }),
		iterRatio:     med(func(s speedSample) float64 { return float64(s.perIter) / float64(s.barePerIter) }),
		respIter:      d(func(s speedSample) time.Duration { return s.respPerIter }),
		respIterRatio: med(func(s speedSample) float64 { return float64(s.respPerIter) / float64(s.barePerIter) }),
		rssMiB:        med(func(s speedSample) float64 { return float64(s.rssKiB) / 1024 }),
		bareRSSMiB:    med(func(s speedSample) float64 { return float64(s.bareRSSKiB) / 1024 }),
		initMS:        med(func(s speedSample) float64 { return s.initMS }),
		wall:          d(func(s speedSample) time.Duration { return s.wall }),
		wallEvents:    d(func(s speedSample) time.Duration { return s.wallEvents }),
		eventsRatio:   med(func(s speedSample) float64 { return float64(s.wallEvents) / float64(s.wall) }),
		baseStart:     d(func(s speedSample) time.Duration { return s.baseStart }),
		baseIter:      d(func(s speedSample) time.Duration { return s.basePerIter }),
		baseRSSMiB:    med(func(s speedSample) float64 { return float64(s.baseRSSKiB) / 1024 }),
		baseInitMS:    med(func(s speedSample) float64 { return s.baseInitMS }),
	}
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "OVER"
}

func (g goals) table() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	rows := [][]string{
		{"start-up to first LLM request, 1 MCP server", ms(g.start), ms(g.bareStart), fmt.Sprintf("%.2f×", g.startRatio), fmt.Sprintf("≤ %.1f×", limitStartup), verdict(g.startRatio <= limitStartup)},
		{"overhead per iteration incl. 1 MCP call, 20 it.", ms(g.iter), ms(g.bareIter), fmt.Sprintf("%.2f×", g.iterRatio), fmt.Sprintf("≤ %.1f×", limitPerIter), verdict(g.iterRatio <= limitPerIter)},
		{"the same, responses wire (--wire-api responses)", ms(g.respIter), ms(g.bareIter), fmt.Sprintf("%.2f×", g.respIterRatio), fmt.Sprintf("≤ %.1f×", limitPerIter), verdict(g.respIterRatio <= limitPerIter)},
		{"peak RSS, 20 iterations", fmt.Sprintf("%.1f MiB", g.rssMiB), fmt.Sprintf("%.1f MiB", g.bareRSSMiB), "", fmt.Sprintf("≤ %.0f MiB", limitRSSMiB), verdict(g.rssMiB > 0 && g.rssMiB <= limitRSSMiB)},
		{"package initializers (odek version)", fmt.Sprintf("%.2f ms", g.initMS), "", "", fmt.Sprintf("≤ %.0f ms", limitInitMS), verdict(g.initMS <= limitInitMS)},
		{"--events-jsonl on vs off, wall of 20 it.", ms(g.wallEvents), ms(g.wall) + " (off)", fmt.Sprintf("%.2f×", g.eventsRatio), fmt.Sprintf("≤ %.1f×", limitEventsRatio), verdict(g.eventsRatio <= limitEventsRatio)},
	}
	if g.baseStart > 0 {
		rows = append(rows,
			[]string{"baseline (ODEK_SPEED_BASELINE): start-up", ms(g.baseStart), "", fmt.Sprintf("%.2f×", float64(g.baseStart)/float64(g.bareStart)), "", ""},
			[]string{"baseline: overhead per iteration", ms(g.baseIter), "", fmt.Sprintf("%.2f×", float64(g.baseIter)/float64(g.bareIter)), "", ""},
			[]string{"baseline: peak RSS, 20 iterations", fmt.Sprintf("%.1f MiB", g.baseRSSMiB), "", "", "", ""},
			[]string{"baseline: package initializers", fmt.Sprintf("%.2f ms", g.baseInitMS), "", "", "", ""})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %-50s %-11s %-16s %-7s %-9s %s\n", "goal", "odek", "floor", "ratio", "limit", "")
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-50s %-11s %-16s %-7s %-9s %s\n", r[0], r[1], r[2], r[3], r[4], r[5])
	}
	return b.String()
}
