package session

import (
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/redact"
)

// history1000 is a 1,000-message conversation: system, task, then tool
// groups (assistant + one 1 KiB result) and a final answer.
func history1000() []llm.Message {
	body := strings.Repeat("result line with some words in it\n", 30) // ~1 KiB
	msgs := []llm.Message{system("You are odek."), user("the task")}
	for len(msgs) < 999 {
		msgs = append(msgs, toolGroup("g"+string(rune('a'+len(msgs)%26)), 1, body)...)
	}
	return append(msgs[:999], answer("done"))
}

// BenchmarkSave1000 saves a 1,000-message history after one more tool
// batch, as the loop's per-batch save does: the new messages are redacted,
// the file is encoded, written, fsynced and renamed, the index updated.
func BenchmarkSave1000(b *testing.B) {
	s := NewStore(Options{Dir: b.TempDir(), Redact: redact.String})
	hist := history1000()
	sess, _, err := s.Create(New{Model: "m", Messages: hist[:998]})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sess.Update(hist[:998])
		sess.Update(hist) // two new messages each round, like one tool batch
		if _, err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sess.FileSize())/1024, "KiB/file")
}

// BenchmarkSave1000Cold redacts all 1,000 messages (the first save of a
// continued session written by an older odek).
func BenchmarkSave1000Cold(b *testing.B) {
	s := NewStore(Options{Dir: b.TempDir(), Redact: redact.String})
	hist := history1000()
	sess, _, err := s.Create(New{Model: "m", Messages: hist[:2]})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		sess.RedactBoundary = 0
		sess.Update(hist)
		if _, err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMAC1000 is what signing adds to a 1,000-message session: Save
// (sign: one HMAC over the encoded file) and Load (verify: one more encode
// and HMAC), with and without a key.
func BenchmarkMAC1000(b *testing.B) {
	for _, signed := range []bool{false, true} {
		name := map[bool]string{false: "unsigned", true: "signed"}[signed]
		home := b.TempDir()
		o := Options{Dir: home + "/sessions", Redact: redact.String}
		if signed {
			o.KeyPath = home + "/" + KeyFile
		}
		s := NewStore(o)
		sess, _, err := s.Create(New{Model: "m", Messages: history1000()})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("save/"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Save(sess); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("load/"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Load(sess.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
