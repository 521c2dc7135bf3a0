// Package faults holds the reliability tests of the API: each test starts its
// own PostgreSQL cluster (and, for network faults, a Toxiproxy between the
// server and the database), runs the real server binary as a process under a
// small concurrent load, breaks something on purpose and checks that the API
// answers 503 + Retry-After within its request budget, never hangs, never
// answers 500, recovers without a restart, returns to its baseline of
// goroutines and database connections, and loses or duplicates no
// acknowledged write. TestSoak (make soak) is a bounded loopback load test
// that reports resource use over time.
package faults
