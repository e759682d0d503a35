package trace

import "testing"

func TestParseAttributes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
	}{
		{"{'receiver': 1, 'communicator': 'Comm 1', 'msg_tag': 10, 'msg_length': 16384}",
			map[string]string{"receiver": "1", "communicator": "Comm 1", "msg_tag": "10", "msg_length": "16384"}},
		{"{'attributes': {'Attribute 2': 26602}, 'program_name': '/a/b, c.otf2', 'program_arguments': []}",
			map[string]string{"attributes": "", "program_name": "/a/b, c.otf2", "program_arguments": ""}},
		{`{"sender": 0}`, map[string]string{"sender": "0"}},
		{"{}", map[string]string{}},
		{"not a dict", nil},
		{"{'broken': 'no end}", map[string]string{}},
	} {
		got := parseAttributes(c.in)
		if len(got) != len(c.want) || (got == nil) != (c.want == nil) {
			t.Fatalf("%q: got %v, want %v", c.in, got, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Fatalf("%q: %s = %q, want %q", c.in, k, got[k], v)
			}
		}
	}
}
