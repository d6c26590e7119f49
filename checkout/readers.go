package checkout

// tally is what one reader has seen of the output.
type tally struct {
	fail bool // a fail signal only this runner prints
	// weak: a fail signal other programs may print too (a bare `error:` line,
	// a JavaScript exception): it counts when the command names the runner or
	// the output shows the runner ran.
	weak    bool
	known   bool // a line only this runner prints was seen
	verdict int8 // the runner's whole-run summary: +1 pass, -1 fail
	// endPass: a pass line that settles the run when the end of the output
	// is visible, seen in the part that holds the end.
	endPass bool
	// unitPass: per-unit pass lines, which settle the run when the whole
	// output is visible.
	unitPass   bool
	unitCounts bool // the counts are tallied from per-unit lines
	counted    bool // the counts come from the runner's summary
	// failCounted: the counts are those of a failing summary.
	failCounted bool

	passed, failed, errors, skipped int
	// since: failing units seen since the last unit result line (go
	// test: the top-level tests failing in the package under way).
	since int

	state uint32 // reader-specific flags
}

// reader reads one runner's output.
type reader struct {
	id   int
	name string
	// scan judges one line; it reports whether the line is harmless noise of
	// a runner that prints nothing else on success ("go: downloading …").
	scan func(t *tally, l *line, p *plan) bool
	// silent: the runner prints nothing when it succeeds.
	silent bool
	// wrapper: the runner runs a script cully cannot see (make, npm, …):
	// every reader reads its output.
	wrapper bool
	// inWrapper: read behind a wrapper or an unknown script.
	inWrapper bool
	// always: read whatever the command (wrappers' and the shell's errors).
	always bool
}

// Reader ids, in the order readers are consulted behind a wrapper.
const (
	rGoTest = iota
	rPytest
	rJest
	rVitest
	rMocha
	rCargoTest
	rMix
	rRSpec
	rMinitest
	rTsc
	rESLint
	rRuff
	rMypy
	rGolangci
	rGoVet
	rGoBuild
	rCargoCheck
	rMake
	rNpm
	rPnpm
	rYarn
	rJust
	rTask
	rRake
	rShell
	numReaders
)

// readers is the table of readers, indexed by id. It never changes.
var readers = [numReaders]reader{
	rGoTest:     {id: rGoTest, name: "go test", scan: scanGoTest, inWrapper: true},
	rPytest:     {id: rPytest, name: "pytest", scan: scanPytest, inWrapper: true},
	rJest:       {id: rJest, name: "jest", scan: scanJest, inWrapper: true},
	rVitest:     {id: rVitest, name: "vitest", scan: scanVitest, inWrapper: true},
	rMocha:      {id: rMocha, name: "mocha", scan: scanMocha, inWrapper: true},
	rCargoTest:  {id: rCargoTest, name: "cargo test", scan: scanCargoTest, inWrapper: true},
	rMix:        {id: rMix, name: "mix test", scan: scanMix, inWrapper: true},
	rRSpec:      {id: rRSpec, name: "rspec", scan: scanRSpec, inWrapper: true},
	rMinitest:   {id: rMinitest, name: "minitest", scan: scanMinitest, inWrapper: true},
	rTsc:        {id: rTsc, name: "tsc", scan: scanTsc, silent: true, inWrapper: true},
	rESLint:     {id: rESLint, name: "eslint", scan: scanESLint, silent: true, inWrapper: true},
	rRuff:       {id: rRuff, name: "ruff", scan: scanRuff, inWrapper: true},
	rMypy:       {id: rMypy, name: "mypy", scan: scanMypy, inWrapper: true},
	rGolangci:   {id: rGolangci, name: "golangci-lint", scan: scanGolangci, silent: true, inWrapper: true},
	rGoVet:      {id: rGoVet, name: "go vet", scan: scanGoBuild, silent: true},
	rGoBuild:    {id: rGoBuild, name: "go build", scan: scanGoBuild, silent: true},
	rCargoCheck: {id: rCargoCheck, name: "cargo check", scan: scanCargoCheck},
	rMake:       {id: rMake, name: "make", scan: scanMake, wrapper: true, always: true},
	rNpm:        {id: rNpm, name: "npm", scan: scanNpm, wrapper: true, always: true},
	rPnpm:       {id: rPnpm, name: "pnpm", scan: scanPnpm, wrapper: true, always: true},
	rYarn:       {id: rYarn, name: "yarn", scan: scanYarn, wrapper: true, always: true},
	rJust:       {id: rJust, name: "just", scan: scanJust, wrapper: true, always: true},
	rTask:       {id: rTask, name: "task", scan: scanTask, wrapper: true, always: true},
	rRake:       {id: rRake, name: "rake", scan: scanRake, wrapper: true, always: true},
	rShell:      {id: rShell, name: "shell", scan: scanShell, always: true},
}

// passVerdict records a passing summary; a failing one seen before stays:
// two runs in one output pass only if both did.
func (t *tally) passVerdict() {
	if t.verdict == 0 {
		t.verdict = 1
	}
}

// summary records a summary's counts. Once a failing run was counted, the
// counts of a passing one after it do not replace them: they would not
// explain the fail.
func (t *tally) summary(failing bool, passed, failed, errors, skipped int) {
	if t.failCounted && !failing {
		return
	}
	t.known, t.counted, t.failCounted = true, true, failing
	t.passed, t.failed, t.errors, t.skipped = passed, failed, errors, skipped
}
