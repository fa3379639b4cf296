"""The built-in plugins of macrocause; each sub-package registers through its own entry point."""
