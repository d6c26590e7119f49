//go:build !linux && !darwin

package store

// exchange is not available here: the caller swaps with links and renames.
func exchange(a, b string) (bool, error) { return false, nil }
