package arrowio

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tracebook/tracebook/internal/regular"
)

// ErrCSVLineEnd is the error of writing a value (or column name) that holds a carriage return
// right before a line feed as CSV: CSV readers, Go's encoding/csv and so ReadCSV included, read
// "\r\n" inside a quoted value as "\n", so the value would come back changed. Parquet and Arrow
// IPC keep it.
var ErrCSVLineEnd = errors.New(`a CSV value cannot keep "\r\n" (readers turn it into "\n"): write Parquet or Arrow IPC instead`)

// WriteCSV writes t as CSV with a header row. Nulls are empty cells, dictionary columns are
// written as their values, and floats always carry a '.' or an exponent so that [ReadCSV]
// infers them as float64 again. Because an empty cell means null, an empty string reads back
// as null. A value holding "\r\n" cannot be written ([ErrCSVLineEnd]). A write that fails
// panics (see [Write]).
func WriteCSV(path string, t *Table) { failWrite(writeCSV(path, t)) }

func writeCSV(path string, t *Table) error {
	return writeAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		cw := csv.NewWriter(bw)
		// A record of one empty field would be written as an empty line, which readers skip:
		// write it as "" instead so that no row is lost.
		write := func(rec []string) error {
			if len(rec) == 1 && rec[0] == "" {
				cw.Flush()
				_, err := bw.WriteString("\"\"\n")
				return err
			}
			return cw.Write(rec)
		}
		names := t.ColumnNames()
		for _, n := range names {
			if strings.Contains(n, "\r\n") {
				return fmt.Errorf("column name %q: %w", n, ErrCSVLineEnd)
			}
		}
		if err := write(names); err != nil {
			return err
		}
		rec := t.record()
		cols := rec.Columns()
		row := make([]string, len(cols))
		job := startJob("writing "+filepath.Base(path), rec.NumRows(), "rows")
		defer job.Done()
		for i := 0; i < int(rec.NumRows()); i++ {
			if i%batchRows == batchRows-1 {
				if err := job.Add(batchRows); err != nil {
					return err
				}
			}
			for j, c := range cols {
				row[j] = csvCell(c, i)
				if strings.Contains(row[j], "\r\n") {
					return fmt.Errorf("column %q row %d: %w", names[j], i, ErrCSVLineEnd)
				}
			}
			if err := write(row); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return bw.Flush()
	})
}

func csvCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.Float64:
		return formatFloat(a.Value(i))
	case *array.Float32:
		return formatFloat(float64(a.Value(i)))
	case *array.Dictionary:
		return a.Dictionary().ValueStr(a.GetValueIndex(i))
	case *array.String:
		return a.Value(i)
	}
	return a.ValueStr(i)
}

// formatFloat prints the shortest exact representation, with ".0" added to integral values so
// the cell is not mistaken for an integer.
func formatFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(s, ".e") {
		return s
	}
	return s + ".0"
}

// ReadCSV reads a CSV file whose first row names the columns. Each column gets the narrowest
// type that parses all of its non-empty cells, in the order int64, float64, bool ("true" /
// "false"), string; empty cells are null and a column of only empty cells is string. Every row
// must have as many fields as the header.
func ReadCSV(path string) (*Table, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	job := startJob("reading "+filepath.Base(path), size, "bytes")
	defer job.Done()
	t, err := readCSV(&countingReader{r: f, job: job})
	return t, fileErr(path, err)
}

// countingReader counts the bytes read in job and stops reading (with the
// job's error) once the job must stop.
type countingReader struct {
	r   io.Reader
	job Job
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if jerr := c.job.Add(int64(n)); jerr != nil {
		return n, jerr
	}
	return n, err
}

func readCSV(r io.Reader) (*Table, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 1<<16))
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("empty CSV: no header row")
	}
	if err != nil {
		return nil, err
	}
	cells := make([][]string, len(header))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for j, s := range rec {
			cells[j] = append(cells[j], s)
		}
	}
	cols := make([]Column, len(header))
	for j, name := range header {
		cols[j] = inferColumn(name, cells[j])
	}
	return NewTable(cols...)
}

func inferColumn(name string, cells []string) Column {
	valid := make([]bool, len(cells))
	nonEmpty := 0
	for i, s := range cells {
		valid[i] = s != ""
		if valid[i] {
			nonEmpty++
		}
	}
	if nonEmpty == len(cells) {
		valid = nil
	}
	if nonEmpty > 0 {
		if v, ok := parseAll(cells, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }); ok {
			return NullableInt64(name, v, valid)
		}
		if v, ok := parseAll(cells, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); ok {
			return NullableFloat64(name, v, valid)
		}
		if v, ok := parseAll(cells, parseBool); ok {
			return NullableBool(name, v, valid)
		}
	}
	return NullableString(name, cells, valid)
}

func parseBool(s string) (bool, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, strconv.ErrSyntax
}

// parseAll parses every non-empty cell, or reports false at the first that does not parse.
func parseAll[T any](cells []string, parse func(string) (T, error)) ([]T, bool) {
	out := make([]T, len(cells))
	for i, s := range cells {
		if s == "" {
			continue
		}
		v, err := parse(s)
		if err != nil {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}
