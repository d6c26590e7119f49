// Package jsonlite is a small validating JSON scanner for the hook's hot
// path: it checks a whole document and hands back raw member values,
// decoding only what is asked for.
//
// # Why not encoding/json
//
// The hook is a process that runs before and after every tool call and
// lives a few milliseconds; encoding/json's reflection warm-up and the
// pages its allocations fault in are a large part of that. Measured in the
// same hook, decoding payloads and session state with jsonlite instead
// saves 0.3 ms per call on a small session, 0.7 ms with the session state
// at its caps and 1.7 ms on a 230 KB payload.
//
// # What it accepts
//
// ParseObject, Members and AsObject take a whole document that must be an
// object; Elements and Items one that must be an array. Each accepts
// exactly the documents json.Valid accepts that nest no deeper than the
// depth limit, and FuzzAgreesWithEncodingJSON holds it to that. In detail:
//
//   - Space (' ', '\t', '\n', '\r') may surround the value; any other byte
//     after it is an error.
//   - Numbers follow JSON's grammar: an optional '-', no leading zeros, no
//     '+', digits after a '.', digits after 'e' or 'E' and its optional sign.
//   - Strings hold only the escapes \" \\ \/ \b \f \n \r \t and \u with
//     exactly four hex digits, and no raw byte below 0x20.
//   - Invalid UTF-8 inside a string is accepted, as json.Valid accepts it;
//     decoding turns each invalid byte into U+FFFD, as encoding/json does.
//   - Of duplicate names in ParseObject the last wins, as when encoding/json
//     decodes into a map; Members hands fn every one.
//
// # Depth limit
//
// Arrays and objects nest at most 512 levels, the outermost counting as
// one; deeper, every entry point returns an error. Real hook payloads nest
// a handful of levels, but a hostile tool output can nest millions, which
// would overflow the stack of this recursive scanner; 512 levels take about
// 100 KiB of it. encoding/json's own limit is 10,000 levels, so documents
// nesting 513 to 10,000 levels are the only valid ones jsonlite refuses.
//
// # Values
//
// Str, Int and Unquote, and the Object methods Str, Int and Bool, take a
// raw value as the scanner hands it out, with no space around it, and
// decode it as encoding/json decodes it into a string, an int64 or a bool:
// escapes and surrogate pairs included, a lone surrogate as U+FFFD. What
// encoding/json would refuse or leave unset gives "", 0 or false (and false
// from Unquote): a number for a string, 1.5 or 1e3 or an overflow for an
// int64. Present is false for a missing member and for null.
//
// # Size
//
// jsonlite sets no size limit of its own: callers bound what they read
// (the hook reads at most 16 MiB of payload). Each call takes time linear
// in its input; Sub and AsObject scan again the member they parse. Raw
// values are sub-slices of the input, not copies, so the input must not
// change while they are in use. Memory is the Object map of top-level
// members and their decoded names (Members and Elements build none), the
// stack the depth limit bounds, and the strings Str and Unquote return.
//
// # Errors
//
// Members and Elements call fn as they scan, so fn may see members or
// elements of a document that turns out to be invalid further on: act on
// them only when the call returns nil. Sub, AsObject and Items are
// tolerant: what is not a valid object or array gives an empty result.
package jsonlite
