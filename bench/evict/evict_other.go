//go:build !linux

package main

import "errors"

func evict(string) (int, int, error) {
	return 0, 0, errors.New("dropping one file from the page cache is supported on Linux only")
}
