package profile

import (
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

func TestZZView(t *testing.T) {
	cfg := trace.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Noise = 8, 40, 1, 0.3
	v0 := trace.Generate(cfg)
	cfg.Version, cfg.SlowRank, cfg.SlowFactor = 1, 5, 1.6
	v1 := trace.Generate(cfg)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(Boxes(v0, Top(8)).Plot().Save("/tmp/pv_boxes.png"))
	must(Boxes(v1, PerProcess(), Functions("compute_flux", "update_cells", "MPI_Allreduce")).Plot().Save("/tmp/pv_boxes_pp.png"))
	must(CallMatrix(v0, Inclusive()).Plot().Save("/tmp/pv_cm.png"))
	must(CallMatrix(v1, Caller("solve"), PerProcess()).Plot().Save("/tmp/pv_cm_pp.png"))
	must(Compare(v0, v1, Top(8)).Plot().Save("/tmp/pv_cmp.png"))
	t.Log(Compare(v0, v1, Top(8)).Headline())
}
