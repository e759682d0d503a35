package align

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The text form keeps the state marks under their pairs: A, marks and B are wrapped together
// into blocks of at most 80 columns.
func TestResultText(t *testing.T) {
	long := []string{"MPI_Init", "read_input", "solve", "exchange", "MPI_Isend", "MPI_Irecv", "MPI_Waitall",
		"compute_flux", "update_cells", "apply_bc", "MPI_Allreduce", "MPI_Finalize"}
	longB := []string{"MPI_Init", "read_input", "solve", "exchange", "MPI_Isend", "MPI_Waitall",
		"compute_flux", "limiter", "update_cells", "apply_bc", "MPI_Allreduce", "MPI_Finalize"}
	huge := strings.Repeat("x", 90)
	for _, c := range []struct {
		name string
		r    *Result
		want string
	}{
		{"worked example", Strings("mcacmam", "mcacbcmbm"),
			"alignment A vs B: 9 pairs (equal 6, diff 1, gapA 2, gapB 0), score 9, similarity 0.6667, method NW\n" +
				"A mcac--mam\n" +
				"  ====--=!=\n" +
				"B mcacbcmbm"},
		{"wrapped", Sequences(long, longB),
			"alignment A vs B: 13 pairs (equal 11, diff 0, gapA 1, gapB 1), score 20, similarity 0.8889, method NW\n" +
				"A MPI_Init read_input solve exchange MPI_Isend MPI_Irecv MPI_Waitall\n" +
				"  =        =          =     =        =         -         =\n" +
				"B MPI_Init read_input solve exchange MPI_Isend -         MPI_Waitall\n" +
				"\n" +
				"A compute_flux -       update_cells apply_bc MPI_Allreduce MPI_Finalize\n" +
				"  =            -       =            =        =             =\n" +
				"B compute_flux limiter update_cells apply_bc MPI_Allreduce MPI_Finalize"},
		{"name wider than a block", Sequences([]string{"a", huge, "b"}, []string{"a", huge, "c"}),
			"alignment A vs B: 3 pairs (equal 2, diff 1, gapA 0, gapB 0), score 3, similarity 0.6667, method NW\n" +
				"A a\n  =\nB a\n\n" +
				"A " + huge + "\n  =\nB " + huge + "\n\n" +
				"A b\n  !\nB c"},
		{"empty", Strings("", ""),
			"alignment A vs B: 0 pairs (equal 0, diff 0, gapA 0, gapB 0), score 0, similarity 1.0000, method Special"},
	} {
		got := c.r.String()
		if got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
		for _, l := range strings.Split(got, "\n")[1:] {
			if utf8.RuneCountInString(l) > 80 && !strings.Contains(l, huge) {
				t.Errorf("%s: line of %d columns: %q", c.name, utf8.RuneCountInString(l), l)
			}
		}
	}
	h := Strings("mcacmam", "mcacbcmbm").MIMEBundle()["text/html"].(string)
	if w := `<pre style="white-space:pre;overflow-x:auto">A mcac--mam` + "\n  ====--=!=\nB mcacbcmbm</pre>"; !strings.Contains(h, w) {
		t.Errorf("HTML lacks %q:\n%s", w, h)
	}
}

// Pair labels its sides with the processes' short labels, after their runs'
// names when the processes come from two runs (TestPairHeadlineNamesRuns).
func TestPairLabels(t *testing.T) {
	a, b := genPair(t, 4, 2)
	r := Pair(a.Process(3), b.Process(3))
	la, lb := a.Name()+" · rank 3", b.Name()+" · rank 3"
	if r.LabelA != la || r.LabelB != lb || !strings.HasPrefix(r.String(), "alignment "+la+" vs "+lb+": ") {
		t.Errorf("labels %q %q: %s", r.LabelA, r.LabelB, r.String())
	}
}
