package trace

// The JSON tokenizer of the Chrome reader: a small hand-written scanner over
// a buffered reader that knows its byte offset, so that an error names the
// byte where it happened without the file being read whole. It allocates
// only for the strings it keeps (names, categories, ids).

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// errTruncated is the cause of an error at the end of the input inside a value.
var errTruncated = errors.New("unexpected end of input (truncated file?)")

// chromeSyntaxError is malformed JSON at byte Offset.
type chromeSyntaxError struct {
	Offset int64
	Msg    string
}

func (e *chromeSyntaxError) Error() string {
	return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset)
}

// jsonScanner reads JSON tokens from r. base is the offset of buf[0] in the
// input; pos the next unread byte of buf.
type jsonScanner struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	base int64
	eof  bool
	err  error // a read error other than io.EOF
	str  []byte
}

func newJSONScanner(r io.Reader) *jsonScanner {
	return &jsonScanner{r: r, buf: make([]byte, 256<<10)}
}

// offset returns the offset of the next unread byte.
func (s *jsonScanner) offset() int64 { return s.base + int64(s.pos) }

// fill reads more input, keeping nothing before pos; false at the end.
func (s *jsonScanner) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

func (s *jsonScanner) fail(off int64, format string, args ...any) error {
	if s.err != nil {
		return fmt.Errorf("reading at byte %d: %w", off, s.err)
	}
	return &chromeSyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (s *jsonScanner) truncated() error {
	if s.err != nil {
		return fmt.Errorf("reading at byte %d: %w", s.offset(), s.err)
	}
	return fmt.Errorf("%w at byte %d", errTruncated, s.offset())
}

// peek skips white space and returns the next byte without consuming it;
// ok false at the end of the input.
func (s *jsonScanner) peek() (byte, bool) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				return c, true
			}
			s.pos++
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// expect consumes the byte c after white space.
func (s *jsonScanner) expect(c byte, what string) error {
	b, ok := s.peek()
	if !ok {
		return s.truncated()
	}
	if b != c {
		return s.fail(s.offset(), "want %s, found %s", what, quoteByte(b))
	}
	s.pos++
	return nil
}

func quoteByte(b byte) string {
	if b >= 0x20 && b < 0x7f {
		return fmt.Sprintf("%q", rune(b))
	}
	return fmt.Sprintf("byte 0x%02x", b)
}

// readString reads a JSON string (after white space) and returns its
// unescaped bytes, valid until the next call.
func (s *jsonScanner) readString() ([]byte, error) {
	if err := s.expect('"', "a string"); err != nil {
		return nil, err
	}
	start := s.offset() - 1
	s.str = s.str[:0]
	for {
		if s.pos >= s.end && !s.fill() {
			return nil, s.truncated()
		}
		// the common run without escapes or the closing quote
		i := s.pos
		for i < s.end && s.buf[i] != '"' && s.buf[i] != '\\' && s.buf[i] >= 0x20 {
			i++
		}
		s.str = append(s.str, s.buf[s.pos:i]...)
		s.pos = i
		if i == s.end {
			continue
		}
		c := s.buf[i]
		s.pos++
		switch {
		case c == '"':
			if !utf8.Valid(s.str) {
				return nil, s.fail(start, "string is not valid UTF-8")
			}
			return s.str, nil
		case c < 0x20:
			return nil, s.fail(s.offset()-1, "control character in string")
		}
		// an escape
		if s.pos >= s.end && !s.fill() {
			return nil, s.truncated()
		}
		e := s.buf[s.pos]
		s.pos++
		switch e {
		case '"', '\\', '/':
			s.str = append(s.str, e)
		case 'b':
			s.str = append(s.str, '\b')
		case 'f':
			s.str = append(s.str, '\f')
		case 'n':
			s.str = append(s.str, '\n')
		case 'r':
			s.str = append(s.str, '\r')
		case 't':
			s.str = append(s.str, '\t')
		case 'u':
			r, err := s.hex4()
			if err != nil {
				return nil, err
			}
			if utf16.IsSurrogate(r) {
				// a low surrogate must follow: \uDC00
				r2 := utf8.RuneError
				if s.pos+1 < s.end || s.fill() && s.pos+1 < s.end {
					if s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
						s.pos += 2
						lo, err := s.hex4()
						if err != nil {
							return nil, err
						}
						r2 = utf16.DecodeRune(r, lo)
					}
				}
				r = r2
			}
			s.str = utf8.AppendRune(s.str, r)
		default:
			return nil, s.fail(s.offset()-1, "invalid escape %s in string", quoteByte(e))
		}
	}
}

func (s *jsonScanner) hex4() (rune, error) {
	var r rune
	for k := 0; k < 4; k++ {
		if s.pos >= s.end && !s.fill() {
			return 0, s.truncated()
		}
		c := s.buf[s.pos]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, s.fail(s.offset(), "invalid \\u escape")
		}
		s.pos++
		r = r<<4 | rune(d)
	}
	return r, nil
}

// readNumber reads a JSON number (after white space) and returns its text,
// valid until the next call.
func (s *jsonScanner) readNumber() ([]byte, error) {
	if _, ok := s.peek(); !ok {
		return nil, s.truncated()
	}
	start := s.offset()
	s.str = s.str[:0]
	for {
		if s.pos >= s.end && !s.fill() {
			break
		}
		c := s.buf[s.pos]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.str = append(s.str, c)
			s.pos++
			continue
		}
		break
	}
	if !validNumber(s.str) {
		if len(s.str) == 0 && s.pos < s.end {
			return nil, s.fail(start, "want a value, found %s", quoteByte(s.buf[s.pos]))
		}
		return nil, s.fail(start, "malformed number %q", s.str)
	}
	return s.str, nil
}

// validNumber reports whether b is a JSON number.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(b)
}

// readLiteral reads true, false or null.
func (s *jsonScanner) readLiteral() (string, error) {
	start := s.offset()
	for _, w := range []string{"true", "false", "null"} {
		if s.buf[s.pos] != w[0] {
			continue
		}
		for k := 0; k < len(w); k++ {
			if s.pos >= s.end && !s.fill() {
				return "", s.truncated()
			}
			if s.buf[s.pos] != w[k] {
				return "", s.fail(start, "invalid literal")
			}
			s.pos++
		}
		return w, nil
	}
	return "", s.fail(start, "want a value, found %s", quoteByte(s.buf[s.pos]))
}

// jsonKind is the kind of a scalar value.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonString
	jsonNumber
	jsonBool
	jsonObject // skipped
	jsonArray  // skipped
)

func (k jsonKind) String() string {
	return [...]string{"null", "a string", "a number", "a boolean", "an object", "an array"}[k]
}

// scalar reads a value (after white space): a string or number (text
// returned, valid until the next call), a literal, or an object or array,
// which it skips.
func (s *jsonScanner) scalar() (jsonKind, []byte, error) {
	c, ok := s.peek()
	if !ok {
		return 0, nil, s.truncated()
	}
	switch {
	case c == '"':
		b, err := s.readString()
		return jsonString, b, err
	case c == '-' || c >= '0' && c <= '9':
		b, err := s.readNumber()
		return jsonNumber, b, err
	case c == '{':
		return jsonObject, nil, s.skip()
	case c == '[':
		return jsonArray, nil, s.skip()
	}
	w, err := s.readLiteral()
	if err != nil {
		return 0, nil, err
	}
	if w == "null" {
		return jsonNull, nil, nil
	}
	s.str = append(s.str[:0], w...)
	return jsonBool, s.str, nil
}

// skip skips one value of any kind.
func (s *jsonScanner) skip() error {
	c, ok := s.peek()
	if !ok {
		return s.truncated()
	}
	switch c {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		s.pos++
		if c, ok := s.peek(); ok && c == ']' {
			s.pos++
			return nil
		}
		for {
			if err := s.skip(); err != nil {
				return err
			}
			c, ok := s.peek()
			if !ok {
				return s.truncated()
			}
			s.pos++
			if c == ']' {
				return nil
			}
			if c != ',' {
				return s.fail(s.offset()-1, "want ',' or ']' in array, found %s", quoteByte(c))
			}
		}
	}
	_, _, err := s.scalar()
	return err
}

// object reads an object, calling member with each key (valid only until
// the next read) with the scanner before the value, which member must read.
func (s *jsonScanner) object(member func(key []byte) error) error {
	if err := s.expect('{', "an object"); err != nil {
		return err
	}
	if c, ok := s.peek(); ok && c == '}' {
		s.pos++
		return nil
	}
	for {
		k, err := s.readString()
		if err != nil {
			return err
		}
		if err := s.expect(':', "':'"); err != nil {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.truncated()
		}
		s.pos++
		if c == '}' {
			return nil
		}
		if c != ',' {
			return s.fail(s.offset()-1, "want ',' or '}' in object, found %s", quoteByte(c))
		}
	}
}

// parseMicros returns the exact value of a JSON number of microseconds in
// nanoseconds: "12.345" is 12345, "1.5e3" is 1500000; digits below the
// nanosecond are rounded to the nearest (half away from zero). ok false
// if it does not fit an int64.
func parseMicros(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	var mant []byte // significant digits
	exp := 3        // decimal exponent applied to mant, in ns (µs -> ns)
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		mant = append(mant, b[i])
		i++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			mant = append(mant, b[i])
			exp--
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		e, err := strconv.Atoi(string(b[i+1:]))
		if err != nil || e > 400 || e < -400 {
			return 0, false
		}
		exp += e
	}
	for len(mant) > 0 && mant[0] == '0' {
		mant = mant[1:]
	}
	var v int64
	round := false
	for j, d := range mant {
		if pw := exp + (len(mant) - 1 - j); pw < 0 { // below the nanosecond
			round = pw == -1 && d >= '5' // the tenth of a ns decides
			break
		}
		if v > (1<<63-1-int64(d-'0'))/10 {
			return 0, false
		}
		v = v*10 + int64(d-'0')
	}
	if exp > 0 {
		for ; exp > 0; exp-- {
			if v > (1<<63-1)/10 {
				return 0, false
			}
			v *= 10
		}
	}
	if round {
		if v == 1<<63-1 {
			return 0, false
		}
		v++
	}
	if neg {
		v = -v
	}
	return v, true
}
