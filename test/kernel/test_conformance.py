"""Jupyter's own conformance suite (jupyter_kernel_test) against the
installed tracebook kernel. Every category has samples; nothing is skipped."""
import unittest

import jupyter_kernel_test as jkt


class TracebookConformance(jkt.KernelTests):
    kernel_name = "tracebook"
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'fmt.Println("hello, world")'
    code_stderr = 'fmt.Fprintln(os.Stderr, "to stderr")'

    completion_samples = [
        {"text": "strings.ToUpperS", "matches": {"ToUpperSpecial"}},
        {"text": "fmt.Sprin", "matches": {"Sprint", "Sprintf", "Sprintln"}},
    ]
    complete_code_samples = ["x := 1", "func f() int { return 1 }", "for i := 0; i < 3; i++ {}", "fmt.Println(1)"]
    incomplete_code_samples = ["func f() {", "for i := 0; i < 3; i++ {", "x := []int{1,\n2,", "s := `raw"]
    invalid_code_samples = ["x := )", "func ( {}", "x := := 2"]

    code_page_something = "strings.ToUpper?"
    code_generate_error = 'panic("boom")'

    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": '"go" + "pher"', "result": '"gopher"'},
        {"code": "[]int{1, 2, 3}", "result": "[1 2 3]"},
    ]
    code_display_data = [
        {"code": 'display.Show(display.HTML("<b>hi</b>"))', "mime": "text/html"},
        {"code": 'display.Show(display.Markdown("# title"))', "mime": "text/markdown"},
        {"code": 'display.Show(display.SVG("<svg xmlns=\'http://www.w3.org/2000/svg\'/>"))', "mime": "image/svg+xml"},
    ]
    code_history_pattern = "6 *"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "strings.ToUpper"
    code_clear_output = "display.Clear()"


if __name__ == "__main__":
    unittest.main(verbosity=2)
