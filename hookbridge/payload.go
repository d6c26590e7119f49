package hookbridge

import (
	"bytes"
	"errors"
	"fmt"

	"cully/jsonlite"
)

// ParsePayload is the first step of an adapter's Decode: ErrEmpty for a
// blank payload, else the payload's members and its hook_event_name, or
// an error naming the host ("decode Gemini CLI payload: …").
func ParsePayload(raw []byte, host string) (jsonlite.Object, string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, "", ErrEmpty
	}
	p, err := jsonlite.ParseObject(raw)
	if err != nil {
		return nil, "", fmt.Errorf("decode %s payload: %w", host, jsonlite.Where(raw, err))
	}
	hook := p.Str("hook_event_name")
	if hook == "" {
		return nil, "", errors.New("decode " + host + " payload: no hook_event_name")
	}
	return p, hook, nil
}
