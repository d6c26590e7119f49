package ledger

import (
	"time"
)

// The budget's numbers, from the product's spec ("Advisor budget").
const (
	// MaxPerHour accepted automatic requests per session key in any
	// rolling hour.
	MaxPerHour = 6
	// Spacing is the least time between two accepted requests of a session.
	Spacing = 2 * time.Minute
	// Window is the rolling hour: of the cap, of identical-evidence
	// suppression, and of discovery's cooldown.
	Window = time.Hour
	// DiscoveryDeadline bounds one discovery attempt, and one tool-gap
	// research attempt.
	DiscoveryDeadline = 45 * time.Second
	// MinSearches and MaxSearches are what one discovery or research
	// attempt may run ("one to three searches"): a result that reports
	// fewer or more is refused (advisor.Searches).
	MinSearches = 1
	MaxSearches = 3
	// maxResearched bounds the tool gaps remembered as researched per
	// session: a task's handful.
	maxResearched = 16
	// maxSessions bounds the file: the least recently accepted sessions
	// beyond it are dropped (their hour is long over).
	maxSessions = 256
)

// Budget is the accounting file's content.
type Budget struct {
	V int `json:"v"`
	// Last is the latest timestamp recorded anywhere in the file: a clock
	// before it went backwards.
	Last     int64               `json:"last"`
	Sessions map[string]*Session `json:"sessions"`
}

// Session is one session key's accounting.
type Session struct {
	// Accepted are the times of accepted automatic requests within the
	// last Window, oldest first.
	Accepted []int64 `json:"accepted,omitempty"`
	// Seen are the evidence hashes accepted within the last Window.
	Seen []Seen `json:"seen,omitempty"`
	// LastHash is the evidence of the latest accepted request, however
	// old: unchanged evidence after the hour is a refresh, which only
	// discovery may make.
	LastHash string `json:"last_hash,omitempty"`
	// Discovery is each agent's last discovery attempt.
	Discovery map[string]int64 `json:"discovery,omitempty"`
	// Research is each agent's last tool-gap research attempt, and
	// Researched the gaps (their evidence hashes) already researched,
	// newest last: one attempt per gap, whatever became of it.
	Research   map[string]int64 `json:"research,omitempty"`
	Researched []Seen           `json:"researched,omitempty"`
}

// Seen is one accepted evidence hash and when.
type Seen struct {
	Hash string `json:"h"`
	At   int64  `json:"t"`
}

// Reasons a request is not sent.
const (
	ReasonIdentical  = "identical-evidence" // the same evidence was analysed within the hour
	ReasonUnchanged  = "unchanged-evidence" // the same evidence as the last analysis, and no discovery to refresh it
	ReasonSpacing    = "spacing"            // under two minutes since the last accepted request
	ReasonHourlyCap  = "hourly-cap"         // six accepted in the rolling hour
	ReasonCooldown   = "discovery-cooldown" // discovery tried within the hour for this session and agent
	ReasonClock      = "clock-backwards"    // the clock is before the last recorded timestamp
	ReasonUnreadable = "accounting-unreadable"
	ReasonBusy       = "busy" // a worker of this session is running, or every worker slot and every queue ticket is taken
)

// Reasons tool-gap research is not sent.
const (
	ReasonResearchCooldown = "research-cooldown" // tool-gap research tried within the hour for this session and agent
	ReasonResearched       = "gap-researched"    // this tool gap was researched already
)

// Verdict is a budget decision.
type Verdict struct {
	Accept  bool
	Refresh bool   // accepted although the evidence is unchanged: discovery's hourly refresh
	Reason  string // why not, when not accepted
	// Until is when the reason stops applying (zero: when the evidence
	// changes).
	Until time.Time
	// Left is how many requests the session has left in the rolling hour
	// after this decision.
	Left int
}

func (b *Budget) session(key string) *Session {
	if b.Sessions == nil {
		b.Sessions = map[string]*Session{}
	}
	s := b.Sessions[key]
	if s == nil {
		s = &Session{}
		b.Sessions[key] = s
	}
	return s
}

// prune forgets what is older than the window.
func (s *Session) prune(now int64) {
	w := int64(Window / time.Second)
	i := 0
	for i < len(s.Accepted) && s.Accepted[i] <= now-w {
		i++
	}
	s.Accepted = s.Accepted[i:]
	kept := s.Seen[:0]
	for _, x := range s.Seen {
		if x.At > now-w {
			kept = append(kept, x)
		}
	}
	s.Seen = kept
}

// Decide judges one automatic request of session key at now with the
// evidence hash; refresh says discovery is on, so unchanged evidence may
// refresh after the hour. An accepted request is recorded in b.
func Decide(b *Budget, key string, now time.Time, hash string, refresh bool) Verdict {
	t := now.Unix()
	if t < b.Last {
		return Verdict{Reason: ReasonClock, Until: time.Unix(b.Last, 0).UTC()}
	}
	s := b.session(key)
	s.prune(t)
	left := MaxPerHour - len(s.Accepted)
	for _, x := range s.Seen {
		if x.Hash == hash {
			return Verdict{Reason: ReasonIdentical, Until: unix(x.At + int64(Window/time.Second)), Left: left}
		}
	}
	isRefresh := hash == s.LastHash
	if isRefresh && !refresh {
		return Verdict{Reason: ReasonUnchanged, Left: left}
	}
	if n := len(s.Accepted); n > 0 && t-s.Accepted[n-1] < int64(Spacing/time.Second) {
		return Verdict{Reason: ReasonSpacing, Until: unix(s.Accepted[n-1] + int64(Spacing/time.Second)), Left: left}
	}
	if left <= 0 {
		return Verdict{Reason: ReasonHourlyCap, Until: unix(s.Accepted[0] + int64(Window/time.Second)), Left: 0}
	}
	s.Accepted = append(s.Accepted, t)
	s.Seen = append(s.Seen, Seen{Hash: hash, At: t})
	s.LastHash = hash
	b.touch(t)
	b.bound()
	return Verdict{Accept: true, Refresh: isRefresh, Left: left - 1}
}

// Discover decides a discovery attempt for (key, agent) at now and, when
// it may go, records it at once: a failed attempt counts toward the
// cooldown as a successful one does.
func Discover(b *Budget, key, agent string, now time.Time) Verdict {
	t := now.Unix()
	if t < b.Last {
		return Verdict{Reason: ReasonClock, Until: unix(b.Last)}
	}
	s := b.session(key)
	if at, ok := s.Discovery[agent]; ok && t-at < int64(Window/time.Second) {
		return Verdict{Reason: ReasonCooldown, Until: unix(at + int64(Window/time.Second))}
	}
	if s.Discovery == nil {
		s.Discovery = map[string]int64{}
	}
	s.Discovery[agent] = t
	b.touch(t)
	return Verdict{Accept: true}
}

// Research decides a tool-gap research attempt for (key, agent) at now on
// the gap's evidence hash, under discovery's rules: one attempt per
// Window per session and agent, counted when it starts (a failed attempt
// starts the cooldown too); and one attempt per gap, ever (as long as the
// session's last maxResearched gaps are remembered). Accepted, it is
// recorded at once.
func Research(b *Budget, key, agent, hash string, now time.Time) Verdict {
	t := now.Unix()
	if t < b.Last {
		return Verdict{Reason: ReasonClock, Until: unix(b.Last)}
	}
	s := b.session(key)
	if researched(s, hash) {
		return Verdict{Reason: ReasonResearched}
	}
	if at, ok := s.Research[agent]; ok && t-at < int64(Window/time.Second) {
		return Verdict{Reason: ReasonResearchCooldown, Until: unix(at + int64(Window/time.Second))}
	}
	if s.Research == nil {
		s.Research = map[string]int64{}
	}
	s.Research[agent] = t
	s.Researched = append(s.Researched, Seen{Hash: hash, At: t})
	if len(s.Researched) > maxResearched {
		s.Researched = append(s.Researched[:0], s.Researched[len(s.Researched)-maxResearched:]...)
	}
	b.touch(t)
	return Verdict{Accept: true}
}

func researched(s *Session, hash string) bool {
	for _, x := range s.Researched {
		if x.Hash == hash {
			return true
		}
	}
	return false
}

// Researched reports whether session key's gap of that evidence hash was
// researched (status and the panel).
func Researched(b *Budget, key, hash string) bool {
	s := b.Sessions[key]
	return s != nil && researched(s, hash)
}

// Status is what the budget says of a session now, without changing it.
type Status struct {
	Left     int       `json:"requests_left_this_hour"`
	NextSlot time.Time `json:"next_slot"` // when the next request could be accepted (now when it could be)
	Cooldown time.Time `json:"discovery_cooldown_until,omitempty"`
	// ResearchCooldown is when the agent's tool-gap research may run again.
	ResearchCooldown time.Time `json:"research_cooldown_until,omitempty"`
	LastAccept       time.Time `json:"last_accepted,omitempty"`
}

// StatusOf reports a session's budget at now.
func StatusOf(b *Budget, key, agent string, now time.Time) Status {
	t := now.Unix()
	st := Status{Left: MaxPerHour, NextSlot: now.UTC()}
	s := b.Sessions[key]
	if s == nil {
		return st
	}
	c := *s
	c.Accepted = append([]int64(nil), s.Accepted...)
	c.Seen = append([]Seen(nil), s.Seen...)
	c.prune(t)
	st.Left = MaxPerHour - len(c.Accepted)
	if n := len(c.Accepted); n > 0 {
		st.LastAccept = unix(c.Accepted[n-1])
		if next := unix(c.Accepted[n-1] + int64(Spacing/time.Second)); next.After(st.NextSlot) {
			st.NextSlot = next
		}
		if st.Left <= 0 {
			if next := unix(c.Accepted[0] + int64(Window/time.Second)); next.After(st.NextSlot) {
				st.NextSlot = next
			}
		}
	}
	if at, ok := s.Discovery[agent]; ok && t-at < int64(Window/time.Second) {
		st.Cooldown = unix(at + int64(Window/time.Second))
	}
	if at, ok := s.Research[agent]; ok && t-at < int64(Window/time.Second) {
		st.ResearchCooldown = unix(at + int64(Window/time.Second))
	}
	return st
}

func (b *Budget) touch(t int64) {
	if t > b.Last {
		b.Last = t
	}
}

// bound drops the sessions whose latest acceptance is oldest, past
// maxSessions.
func (b *Budget) bound() {
	for len(b.Sessions) > maxSessions {
		oldest, at := "", int64(1<<62)
		for k, s := range b.Sessions {
			last := int64(0)
			if n := len(s.Accepted); n > 0 {
				last = s.Accepted[n-1]
			}
			if last < at {
				oldest, at = k, last
			}
		}
		delete(b.Sessions, oldest)
	}
}

func unix(t int64) time.Time { return time.Unix(t, 0).UTC() }
