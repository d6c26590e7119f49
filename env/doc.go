// Package env is the one place cully reads its process environment: the
// state dir, the config file, the clock, the project dir, the lock wait and
// the guard switch. Every command and the hook resolve them here, so a
// variable means the same thing everywhere.
//
// Invariants:
//   - Nothing else in cully calls os.Getenv for its own settings; packages
//     below this one (store, config, engine) take resolved values.
//   - A bad value is reported as an error beside a usable fallback, never a
//     crash: the hook records it and goes on.
package env
