// Package secretscan judges cully's redaction with an independent
// detector: gitleaks, a well-kept secret scanner, with its default rules.
// It is a module of its own (run from .ci/run) so that gitleaks and what
// it brings (viper, archive readers, a wasm runtime) stay out of cully's
// module: neither cully's binaries nor its default test build link it.
//
// Its tests read the regression corpus (redact/testdata/secrets.txt)
// and judge redaction twice: the functions themselves (judge_test.go) and
// every surface of the real binaries, as cmd/cully's every-surface test
// writes them out (surfaces_test.go).
package secretscan
