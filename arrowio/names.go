package arrowio

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// columnUnits are the units a column name may end with, in parentheses ("Inclusive (ns)").
var columnUnits = []string{"ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "B/s", "%"}

// columnFunctionWords are the short words that stay lower case in a Title Case column name.
var columnFunctionWords = []string{"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "per", "the", "to", "vs", "with"}

// CheckColumnNames checks t's column names against the notebook vocabulary (docs/surface.md,
// Table columns), for the tests of the packages that build tables:
//
//   - Title Case words separated by single spaces, as pipit's events table: every word starts
//     with an upper-case letter or a digit, or has no letter at all ("−", "|"), except the
//     short function words of, in, at, per, vs, to, and, or, by, on, for, from, with, as, a,
//     an, the, which stay lower case after the first word ("Time in Function (ns)"); no
//     underscores and no parentheses but the unit's;
//   - a quantity with a unit ends with it in parentheses and carries the same unit in its
//     metadata (Int64("Inclusive (ns)", v).WithUnit("ns")); a column with a unit in its
//     metadata has it at the end of its name. The units: ns, µs, ms, s, B, KiB, MiB, GiB,
//     B/s and %. Counts and ratios have none.
//
// Time points (a timestamp, an enter time) are named "(ns)" but keep no unit metadata, so that
// the table shows them exactly instead of as durations (see Column.WithUnit); timePoints names
// those columns, which must end with "(ns)" and have no unit. It returns nil when every name
// follows the rules, else an error naming each column that does not and why.
func CheckColumnNames(t *Table, timePoints ...string) error {
	var errs []error
	names := t.ColumnNames()
	for _, p := range timePoints {
		if !slices.Contains(names, p) {
			errs = append(errs, fmt.Errorf("arrowio: time point %q is not a column of the table", p))
		}
	}
	for i, f := range t.Schema().Fields() {
		unit := unitOf(f)
		point := slices.Contains(timePoints, names[i])
		if point {
			if unit != "" {
				errs = append(errs, fmt.Errorf("arrowio: column %q: a time point with the unit %q in its metadata (it would show as a duration)", f.Name, unit))
			}
			if !strings.HasSuffix(f.Name, " (ns)") {
				errs = append(errs, fmt.Errorf("arrowio: column %q: a time point not named \"… (ns)\"", f.Name))
				continue
			}
			unit = "ns"
		}
		if err := checkColumnName(f.Name, unit); err != nil {
			errs = append(errs, fmt.Errorf("arrowio: column %q: %w", f.Name, err))
		}
	}
	return errors.Join(errs...)
}

// checkColumnName checks one name against the rules of CheckColumnNames, unit being the unit
// of the column's metadata ("" for none).
func checkColumnName(name, unit string) error {
	base, named := name, ""
	if strings.HasSuffix(name, ")") {
		i := strings.LastIndex(name, " (")
		if i < 0 {
			return errors.New(`a parenthesis that is not a unit at the end ("Time (ns)")`)
		}
		base, named = name[:i], name[i+2:len(name)-1]
		if !slices.Contains(columnUnits, named) {
			return fmt.Errorf("unit %q is not one of %s", named, strings.Join(columnUnits, ", "))
		}
	}
	switch {
	case named != unit && unit == "":
		return fmt.Errorf("named with the unit %q but none in its metadata (use WithUnit(%q))", named, named)
	case named != unit && named == "":
		return fmt.Errorf("the unit %q of its metadata is not at the end of its name (\"%s (%s)\")", unit, name, unit)
	case named != unit:
		return fmt.Errorf("named with the unit %q but %q in its metadata", named, unit)
	}
	if base == "" {
		return errors.New("no name before the unit")
	}
	if strings.ContainsAny(base, "_()") {
		return errors.New(`underscores or parentheses: Title Case words and the unit at the end ("Time A (ns)")`)
	}
	words := strings.Split(base, " ")
	for k, w := range words {
		if w == "" {
			return errors.New("leading, trailing or double spaces")
		}
		if k > 0 && slices.Contains(columnFunctionWords, w) {
			continue
		}
		for _, r := range w {
			if unicode.IsLetter(r) {
				if !unicode.IsUpper(r) && !unicode.IsTitle(r) {
					return fmt.Errorf("word %q is not capitalised (Title Case, as %q)", w, capitalise(w))
				}
				break
			}
			if unicode.IsDigit(r) {
				break
			}
		}
	}
	return nil
}

// TitleCase writes words as a column name's words are written (CheckColumnNames): each
// capitalised, but the short function words after the first ("wait at N×N" -> "Wait at N×N").
func TitleCase(words string) string {
	w := strings.Fields(words)
	for k, x := range w {
		if k > 0 && slices.Contains(columnFunctionWords, x) {
			continue
		}
		w[k] = capitalise(x)
	}
	return strings.Join(w, " ")
}

// capitalise upper-cases the first letter of w.
func capitalise(w string) string {
	for i, r := range w {
		if unicode.IsLetter(r) {
			return w[:i] + string(unicode.ToUpper(r)) + w[i+utf8.RuneLen(r):]
		}
	}
	return w
}
