package symbols

// The builder of trace.Trace.Timeline registers itself when its package is
// loaded (trace cannot import it: it needs fold, which imports trace), so
// every program with the builtins links it here.
import _ "github.com/tracebook/tracebook/builtins/internal/timeline"
