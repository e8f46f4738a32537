package main

import (
	"os"
	"strconv"
	"time"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/events"
)

// eventTestHooks lets a script shrink the event buffer
// (ODEK_TEST_EVENT_BUFFER) and slow every sink down
// (ODEK_TEST_EVENT_SINK_DELAY_MS per event), to make the emitter drop.
func eventTestHooks() {
	if n, err := strconv.Atoi(os.Getenv("ODEK_TEST_EVENT_BUFFER")); err == nil {
		agentrun.Seams.EventBuffer = n
	}
	if ms, err := strconv.Atoi(os.Getenv("ODEK_TEST_EVENT_SINK_DELAY_MS")); err == nil {
		delay := time.Duration(ms) * time.Millisecond
		agentrun.Seams.WrapEventSink = func(s events.Sink) events.Sink { return slowSink{s, delay} }
	}
}

// slowSink takes delay over every event: a sink that cannot keep up.
type slowSink struct {
	events.Sink
	delay time.Duration
}

func (s slowSink) Write(ev *events.Event) error {
	time.Sleep(s.delay) // the sink's own slowness, not a wait for a condition
	return s.Sink.Write(ev)
}
