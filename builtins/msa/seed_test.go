package msa

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Weber's Figure 5.8 sequences, recovered from Figure 5.10 (removing its
// gaps) and checked against Table 5.3's character counts.
var fig58 = []string{"ababababab", "aaaabbbb", "cde", "dec", "decb"}

func TestMax2FreqHashingResearchSequence(t *testing.T) {
	if got := FreqSimilarity("research", "sequence", 2); got != 5 {
		t.Fatalf("Max2FreqHashing(research, sequence) = %d, want 5 (Weber 5.2.2)", got)
	}
}

// The similarity matrix of 5.2.2 (lower triangle, rows Sequence 2..5).
func TestSimilarityMatrixFig58(t *testing.T) {
	want := [][]int64{{18}, {0, 0}, {0, 0, 4}, {6, 5, 4, 4}}
	for i := 1; i < 5; i++ {
		for j := 0; j < i; j++ {
			if got := FreqSimilarity(fig58[i], fig58[j], 2); got != want[i-1][j] {
				t.Errorf("sim(Sequence %d, Sequence %d) = %d, want %d", i+1, j+1, got, want[i-1][j])
			}
		}
	}
}

// Table 5.2 and the guide order 1-2, 1-5, 5-3, 3-4.
func TestGuideOrderTable52(t *testing.T) {
	b := Strings(fig58, WithGuide(GuideMatrix))
	m, steps := b.Guide()
	if m != GuideMatrix {
		t.Fatalf("guide %v", m)
	}
	var got []string
	for _, s := range steps {
		got = append(got, b.Label(s.Partner)[9:]+"-"+b.Label(s.New)[9:])
	}
	if want := []string{"1-2", "1-5", "5-3", "3-4"}; !slices.Equal(got, want) {
		t.Fatalf("guide order %v, want %v", got, want)
	}
	// The head of the sorted comparisons (Table 5.2).
	tb := b.Comparisons()
	sc, _ := tb.Int64s("Similarity")
	a, _ := tb.Strings("Sequence")
	c, _ := tb.Strings("With")
	var rows []string
	for i := 0; i < 6; i++ {
		rows = append(rows, strings.TrimPrefix(a[i], "Sequence ")+"-"+strings.TrimPrefix(c[i], "Sequence ")+":"+itoa(sc[i]))
	}
	if want := []string{"1-2:18", "1-5:6", "2-5:5", "3-4:4", "3-5:4", "4-5:4"}; !slices.Equal(rows, want) {
		t.Fatalf("Table 5.2 head %v, want %v", rows, want)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// Tables 5.3-5.4 and Figure 5.10.
func TestRankingFig510(t *testing.T) {
	// The input order of Figure 5.8 is 1, 2, 3, 4, 5 = fig58[0], [1], [2], [3], [4].
	b := Strings(fig58, WithGuide(GuideRanking))
	if got := b.TopCharacters(); !slices.Equal(got, []string{"b 10", "a 9", "c 3"}) {
		t.Fatalf("top characters %v, want b 10, a 9, c 3 (Table 5.3)", got)
	}
	r := b.Ranking()
	cnt, _ := r.Int64s("Top Characters")
	lab, _ := r.Strings("Sequence")
	if !slices.Equal(cnt, []int64{10, 8, 2, 1, 1}) || !slices.Equal(lab, []string{"Sequence 1", "Sequence 2", "Sequence 5", "Sequence 3", "Sequence 4"}) {
		t.Fatalf("ranking %v %v, want Table 5.4", cnt, lab)
	}
	// Figure 5.10 places the shorter sequences' calls as late as the
	// score allows; the MSA follows align's rule (as early as it allows,
	// Weber's Figs. 3.7 and 3.21(c)), the mirror image. So the block reads
	// Figure 5.10 backwards, and the block of the sequences reversed, read
	// backwards, is Figure 5.10 exactly.
	want := []string{
		"ababababab",
		"aaa-abbb-b",
		"cde-------",
		"dec-------",
		"decb------",
	}
	if got := b.Aligned(); !slices.Equal(got, want) {
		t.Fatalf("block\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	fig510 := []string{
		"ababababab",
		"a-aaab-bbb",
		"-------cde",
		"-------dec",
		"------decb",
	}
	rev := make([]string, len(fig58))
	for i, s := range fig58 {
		rev[i] = reverse(s)
	}
	got := Strings(rev, WithGuide(GuideRanking)).Aligned()
	for i := range got {
		got[i] = reverse(got[i])
	}
	if !slices.Equal(got, fig510) {
		t.Fatalf("mirrored block\n%s\nwant (Figure 5.10)\n%s", strings.Join(got, "\n"), strings.Join(fig510, "\n"))
	}
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// Figure 5.9 (an image the seed text does not carry): the block the guide
// order 1-2, 1-5, 5-3, 3-4 gives. The text says it "aligns the calls to
// the functions d and e correctly", unlike Figure 5.10: here d and e of
// Sequences 3, 4 and 5 share two columns.
func TestGuidedBlockFig59(t *testing.T) {
	b := Strings(fig58, WithGuide(GuideMatrix))
	want := []string{
		"-ababababab",
		"-aaa-abbb-b",
		"cde--------",
		"-dec-------",
		"-decb------",
	}
	if got := b.Aligned(); !slices.Equal(got, want) {
		t.Fatalf("block\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
