//go:build !linux

package faulttest

import "errors"

func raiseFsize(pid int) error { return errors.New("prlimit is Linux only") }
