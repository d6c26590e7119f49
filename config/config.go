package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"cully/engine"
)

// ProjectFile is the name of the optional per-repository threshold file.
const ProjectFile = ".cully.toml"

// file is the on-disk shape: the rule thresholds live under [rules].
type file struct {
	Rules engine.Config `toml:"rules"`
}

// thresholds is what a project file may set.
type thresholds struct {
	Rules struct {
		ExploreReads       *int   `toml:"explore_reads"`
		UnverifiedEdits    *int   `toml:"unverified_edits"`
		LoopFailures       *int   `toml:"loop_failures"`
		BlindRetryFailures *int   `toml:"blind_retry_failures"`
		LargeReadBytes     *int64 `toml:"large_read_bytes"`
		RereadMinBytes     *int64 `toml:"reread_min_bytes"`
	} `toml:"rules"`
}

// Load returns the effective rule configuration. Errors are returned for
// recording; the configuration is usable whatever they say.
func Load(userPath, projectDir string) (engine.Config, []error) {
	cfg := engine.DefaultConfig()
	var errs []error
	if p := userPath; p != "" {
		if b, err := os.ReadFile(p); err == nil {
			f := file{Rules: cfg}
			if err := toml.Unmarshal(b, &f); err != nil {
				errs = append(errs, fmt.Errorf("read config %s: %w", p, err))
			} else {
				cfg = f.Rules
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("read config %s: %w", p, err))
		}
	}
	if projectDir != "" {
		p := filepath.Join(projectDir, ProjectFile)
		if b, err := os.ReadFile(p); err == nil {
			var t thresholds
			dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
			err := dec.Decode(&t)
			var strict *toml.StrictMissingError
			if errors.As(err, &strict) {
				for _, e := range strict.Errors {
					errs = append(errs, fmt.Errorf("project config %s: %q ignored: a project file may tune thresholds only", p, strings.Join(e.Key(), ".")))
				}
				err = nil
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("read project config %s: %w", p, err))
			} else {
				r := t.Rules
				setInt(&cfg.ExploreReads, r.ExploreReads)
				setInt(&cfg.UnverifiedEdits, r.UnverifiedEdits)
				setInt(&cfg.LoopFailures, r.LoopFailures)
				setInt(&cfg.BlindRetryFailures, r.BlindRetryFailures)
				setInt64(&cfg.LargeReadBytes, r.LargeReadBytes)
				setInt64(&cfg.RereadMinBytes, r.RereadMinBytes)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("read project config %s: %w", p, err))
		}
	}
	return cfg.Sanitize(), errs
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func setInt64(dst *int64, v *int64) {
	if v != nil {
		*dst = *v
	}
}
