package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// result is one request as vegeta recorded it.
type result struct {
	start   int64 // Unix ns
	latency int64 // ns
	code    int
	op      string
	err     string
	body    string
}

// load is how vegeta paces an attack: closed (a fixed number of workers,
// each sending as soon as its previous request returns) or open (a fixed
// arrival rate whatever the latency, so slow answers cannot hide: no
// coordinated omission).
type load struct {
	closedWorkers int
	rate          float64 // requests per second, open model
	maxWorkers    int
	duration      time.Duration
}

func (l load) String() string {
	if l.rate == 0 {
		return fmt.Sprintf("closed, %d connections, %s", l.closedWorkers, l.duration)
	}
	return fmt.Sprintf("open, %.0f req/s, %s", l.rate, l.duration)
}

// attack runs vegeta against base with the requests gen draws and returns
// every result, plus the CPU seconds vegeta itself used.
func (d *driver) attack(ctx context.Context, base string, gen func(*rand.Rand) target, l load, seed uint64) ([]result, float64, error) {
	dir, err := os.MkdirTemp("", "socialbench")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "results.bin")
	args := []string{"attack", "-format=json", "-lazy", "-http2=false", "-keepalive=true", "-timeout=15s",
		"-max-body=300", "-duration=" + l.duration.String(), "-output=" + bin}
	if l.rate == 0 {
		args = append(args, "-rate=0", fmt.Sprintf("-workers=%d", l.closedWorkers), fmt.Sprintf("-max-workers=%d", l.closedWorkers))
	} else {
		args = append(args, fmt.Sprintf("-rate=%d/1s", int(l.rate+0.5)), fmt.Sprintf("-workers=%d", d.opt.conns),
			fmt.Sprintf("-max-workers=%d", l.maxWorkers))
	}
	cmd := exec.CommandContext(ctx, d.opt.vegeta, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("start vegeta: %w", err)
	}
	go func() {
		// Feed targets until vegeta stops reading (the attack is over).
		r := rand.New(rand.NewPCG(seed, 99))
		w := bufio.NewWriterSize(in, 64<<10)
		enc := json.NewEncoder(w)
		for {
			t := gen(r)
			t.URL = base + t.URL
			if err := enc.Encode(t); err != nil {
				break
			}
		}
		in.Close()
	}()
	werr := cmd.Wait()
	var cpu float64
	if ps := cmd.ProcessState; ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			cpu = tv(ru.Utime) + tv(ru.Stime)
		}
	}
	if werr != nil && ctx.Err() != nil {
		return nil, cpu, ctx.Err()
	}
	// vegeta exits 0 even when requests fail; a non-zero exit is its own failure.
	if werr != nil {
		return nil, cpu, fmt.Errorf("vegeta attack: %w", werr)
	}
	rs, err := d.decode(ctx, bin, base)
	return rs, cpu, err
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// decode turns vegeta's binary results into results (vegeta encode -to csv).
func (d *driver) decode(ctx context.Context, bin, base string) ([]result, error) {
	cmd := exec.CommandContext(ctx, d.opt.vegeta, "encode", "-to", "csv", bin)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	cr := csv.NewReader(bufio.NewReaderSize(out, 1<<20))
	cr.FieldsPerRecord = 12
	cr.ReuseRecord = true
	var rs []result
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = cmd.Wait()
			return nil, fmt.Errorf("read vegeta results: %w", err)
		}
		start, _ := strconv.ParseInt(rec[0], 10, 64)
		code, _ := strconv.Atoi(rec[1])
		lat, _ := strconv.ParseInt(rec[2], 10, 64)
		path := strings.TrimPrefix(rec[10], base)
		res := result{start: start, latency: lat, code: code, op: classify(rec[9], path), err: rec[5]}
		if code < 200 || code >= 300 {
			if b, err := base64.StdEncoding.DecodeString(rec[6]); err == nil {
				res.body = string(b)
			}
		}
		rs = append(rs, res)
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("vegeta encode: %w", err)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
	return rs, nil
}
