package timeline_test

import (
	"fmt"
	"time"

	_ "github.com/tracebook/tracebook/builtins/internal/timeline" // registers the builder of tr.Timeline
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// The master timeline of a trace, of a window of it, and of a folded trace with one group
// expanded. In a notebook the timeline displays itself as the interactive view.
func Example() {
	tr := synth.Generate(synth.DefaultGenConfig())
	lt := tr.Timeline()
	for _, l := range lt.Lanes {
		fmt.Printf("%s: %d calls\n", l.Name, len(l.Bars))
	}
	fmt.Println(len(lt.Messages), "messages,", len(lt.Markers), "collective operations")

	w := tr.Window(time.Millisecond, 2*time.Millisecond).Timeline(trace.WithTopLevel())
	fmt.Println(w.Title)

	cfg := synth.DefaultGenConfig()
	cfg.Ranks = 256
	big := synth.Generate(cfg).Timeline(trace.WithExpand(0))
	fmt.Println(len(big.Lanes), "lanes:", big.Lanes[0].Name, "…", big.Lanes[len(big.Lanes)-1].Name)
	for _, n := range big.Notes {
		fmt.Println(n)
	}
}
