// Package replay runs the rules over recorded transcripts and measures
// what cully would have flagged and how often it would have nudged
// (`cully replay`). Nothing is written to the state dir. It reads in
// three steps:
//
//  1. Find the files: the arguments, folders walked recursively;
//  2. Identify each one from its first lines (in parallel): the agent that
//     recorded it (each replayer it is given is asked) and the session it
//     belongs to, or why it is skipped;
//  3. Run each session — every file that carries its id: split parts,
//     subagent transcripts — through its own rule state, sessions in
//     parallel (GOMAXPROCS workers), each one's records in time order.
//
// A worker holds one session's records at a time, never a whole file.
// JudgeMoments says which marked moments of a replay the rules caught
// (`cully replay --moments`).
package replay
