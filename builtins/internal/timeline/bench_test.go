package timeline

import (
	"encoding/base64"
	"os"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/plotting"
)

// BenchmarkTimelineBuild builds the timeline of a generated trace of about 10M events and its
// MIME bundle (the first view in a notebook: data, static PNG, HTML), cold (each iteration on
// a fresh trace, so call trees and message matching are computed, as the first view of a
// notebook does); it reports the bundle's part of the time and the bytes a notebook stores:
//
//	go test ./builtins/internal/timeline -run '^$' -bench TimelineBuild -benchtime 1x -benchmem
//
// 1024ranks folds 1,024 ranks into 64 strips; 64ranks draws 64 lanes of every call;
// 1024ranks-100M (with TRACEBOOK_BENCH_100M=1: about 3 GB) folds a trace of 100M events.
func BenchmarkTimelineBuild(b *testing.B) {
	for _, c := range []struct {
		name         string
		ranks, iters int
	}{{"1024ranks", 1024, 64}, {"64ranks", 64, 1030}, {"1024ranks-100M", 1024, 643}} {
		b.Run(c.name, func(b *testing.B) {
			if c.iters*c.ranks > 1<<19 && os.Getenv("TRACEBOOK_BENCH_100M") != "1" {
				b.Skip("100M events: set TRACEBOOK_BENCH_100M=1")
			}
			cfg := synth.DefaultGenConfig()
			cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout = c.ranks, c.iters, 2, 4
			var events int64
			var lt *plotting.LiveTimeline
			var bundle time.Duration
			var stored int
			for range b.N {
				b.StopTimer()
				tr := synth.Generate(cfg)
				events = tr.NumEvents()
				b.StartTimer()
				lt = tr.Timeline()
				t0 := time.Now()
				m := lt.MIMEBundle()
				bundle += time.Since(t0)
				html, _ := m["text/html"].(string)
				png, _ := m["image/png"].([]byte)
				stored = len(html) + base64.StdEncoding.EncodedLen(len(png)) // a notebook stores the PNG in base64
			}
			b.StopTimer()
			var bars, samples int
			for _, l := range lt.Lanes {
				bars += len(l.Bars)
				samples += len(l.Samples)
			}
			b.ReportMetric(float64(events), "events")
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(len(lt.Lanes)), "lanes")
			b.ReportMetric(float64(bars), "bars")
			b.ReportMetric(float64(len(lt.Messages)), "messages")
			b.ReportMetric(float64(len(lt.Markers)), "markers")
			b.ReportMetric(bundle.Seconds()/float64(b.N), "bundle-s/op")
			b.ReportMetric(float64(stored)/1e6, "notebook-MB")
		})
	}
}
