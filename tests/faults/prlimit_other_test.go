//go:build !linux

package faults

import "errors"

func raiseFsize(pid int) error { return errors.New("prlimit is Linux only") }
