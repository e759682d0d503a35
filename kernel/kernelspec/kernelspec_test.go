package kernelspec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	spec, err := Install(dir, "/opt/bin/tracebook")
	if err != nil {
		t.Fatal(err)
	}
	if spec != filepath.Join(dir, "kernels", "tracebook") {
		t.Fatalf("dir %s", spec)
	}
	b, err := os.ReadFile(filepath.Join(spec, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Argv          []string `json:"argv"`
		DisplayName   string   `json:"display_name"`
		Language      string   `json:"language"`
		InterruptMode string   `json:"interrupt_mode"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	if k.Argv[0] != "/opt/bin/tracebook" || k.Argv[1] != "kernel" || k.Argv[3] != "{connection_file}" ||
		k.DisplayName != "Go (tracebook)" || k.Language != "go" || k.InterruptMode != "message" {
		t.Fatalf("kernel.json %+v", k)
	}
	for _, f := range []string{"logo-32x32.png", "logo-64x64.png", "logo-svg.svg"} {
		if st, err := os.Stat(filepath.Join(spec, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestUserDataDir(t *testing.T) {
	t.Setenv("JUPYTER_DATA_DIR", "/x/y")
	if d, _ := UserDataDir(); d != "/x/y" {
		t.Fatalf("JUPYTER_DATA_DIR ignored: %s", d)
	}
}
