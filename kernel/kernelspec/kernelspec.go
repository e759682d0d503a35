package kernelspec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tracebook/tracebook/install"
)

// Name is the kernelspec name (the directory under kernels/).
const Name = "tracebook"

// UserDataDir returns Jupyter's user data directory.
func UserDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Jupyter"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// SysPrefix returns the prefix of the Python environment running Jupyter.
func SysPrefix() (string, error) {
	for _, v := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := os.Getenv(v); p != "" {
			return p, nil
		}
	}
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(py, "-c", "import sys; print(sys.prefix)").Output()
		if err == nil {
			return strings.TrimSpace(string(out)), nil
		}
	}
	return "", fmt.Errorf("no Python found to determine sys.prefix; use --prefix DIR")
}

// Install writes kernels/tracebook/{kernel.json,logos} under dataDir, with
// argv[0] set to binary. It returns the kernelspec directory.
func Install(dataDir, binary string) (string, error) {
	dir := filepath.Join(dataDir, "kernels", Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	err := fs.WalkDir(install.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := install.Files.ReadFile(p)
		if err != nil {
			return err
		}
		if p == "kernel.json" {
			var spec map[string]any
			if err := json.Unmarshal(b, &spec); err != nil {
				return fmt.Errorf("kernel.json template: %w", err)
			}
			argv := spec["argv"].([]any)
			argv[0] = binary
			if b, err = json.MarshalIndent(spec, "", "  "); err != nil {
				return err
			}
			b = append(b, '\n')
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	})
	if err != nil {
		return "", err
	}
	return dir, nil
}
