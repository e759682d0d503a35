package trace_test

import (
	"encoding/csv"
	"os"
	"testing"
)

// readCSVFile reads a whole CSV file of expected values (pipit's outputs
// kept as test data): its header row, then the others.
func readCSVFile(t *testing.T, path string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("%s: empty CSV", path)
	}
	return all[0], all[1:]
}
