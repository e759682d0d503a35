// Package kernelspec installs the tracebook kernelspec where
// `jupyter kernelspec` looks for it: the user data directory
// (JUPYTER_DATA_DIR, else ~/.local/share/jupyter on Linux,
// ~/Library/Jupyter on macOS), a prefix (PREFIX/share/jupyter), or the
// Python environment's prefix (VIRTUAL_ENV / CONDA_PREFIX / sys.prefix).
package kernelspec
