//go:build !unix

package runs

// canWrite cannot be told ahead here: a failure midway is put back.
func canWrite(string) bool { return true }
