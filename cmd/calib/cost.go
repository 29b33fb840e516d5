package main

import (
	"errors"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/spf13/cobra"
)

// costFlags are the flags of the cost layer (replay/cache), shared by
// replay and sweep: the cache preset and a price file. Cache parameters
// (cache_*) and model= also come through --set.
type costFlags struct {
	preset string
	prices string
}

func addCostFlags(cmd *cobra.Command, f *costFlags) {
	cmd.Flags().StringVar(&f.preset, "cache", "", "prompt-cache preset: "+strings.Join(cache.PresetNames(), ", ")+
		" (default: the session's agent: claude-code for Claude Code, openai for Codex and OpenAI sessions, gemini for Gemini CLI and Google sessions, anthropic otherwise); cache_* --set values override it")
	cmd.Flags().StringVar(&f.prices, "prices", "", "a CSV `FILE` of model prices in USD per million tokens (columns model,provider,input,cache_write_5m,cache_write_1h,cache_read,output[,date,source]) overriding the built-in table")
}

// costSetup is the resolved cost configuration of a command.
type costSetup struct {
	preset    string
	set       map[string]string // cache_* values
	prices    cache.Prices
	priceFile string
	model     string
}

// splitCostSet takes the cost layer's keys (cache_*, model) out of a
// --set map, so that the rest can go to the policy.
func splitCostSet(set map[string]string) (cost, rest map[string]string) {
	cost, rest = cache.SplitSet(set)
	if m, ok := rest["model"]; ok {
		cost["model"] = m
		delete(rest, "model")
	}
	return cost, rest
}

// newCostSetup validates the flags and cost --set values up front: a bad
// cache value is a usage error and a bad price file exit 2 naming the file,
// line, model and field.
func newCostSetup(f costFlags, set map[string]string) (*costSetup, error) {
	c := &costSetup{preset: f.preset, set: map[string]string{}, priceFile: f.prices}
	for k, v := range set {
		if k == "model" {
			c.model = v
		} else {
			c.set[k] = v
		}
	}
	if _, ok := cache.Presets()[f.preset]; f.preset != "" && !ok {
		return nil, usageErrorf("unknown --cache preset %q (available: %s)", f.preset, strings.Join(cache.PresetNames(), ", "))
	}
	preset := f.preset
	if preset == "" {
		preset = "claude-code" // validate the --set values against some preset
	}
	if _, err := cache.Resolve(preset, c.set); err != nil {
		return nil, &usageError{err}
	}
	rows := [][]cache.Price{cache.BuiltinPrices()}
	if f.prices != "" {
		// ParsePrices bounds what it reads (cache.MaxPriceFileBytes).
		file, err := openFlagFile("prices", f.prices)
		if err != nil {
			return nil, err
		}
		ps, err := cache.ParsePrices(f.prices, file)
		file.Close()
		if err != nil {
			return nil, &usageError{err}
		}
		rows = append(rows, ps)
	}
	c.prices = cache.NewPrices(rows...)
	return c, nil
}

// options are the cost options for one session.
func (c *costSetup) options(s *corpus.Session) (cache.Options, error) {
	preset := c.preset
	if preset == "" {
		preset = cache.PresetFor(s)
	}
	p, err := cache.Resolve(preset, c.set)
	if err != nil {
		return cache.Options{}, &usageError{err}
	}
	o := cache.DefaultOptions(p)
	o.Prices, o.PriceFile, o.Model = c.prices, c.priceFile, c.model
	o.Hints = cache.PriceHints{Model: "--set model=NAME", Prices: "--prices"}
	return o, nil
}

// cost prices one replay; a model the --prices file does not price is a
// usage error (exit 2) naming the model.
func (c *costSetup) cost(t *replay.Trace) (*cache.SessionCost, error) {
	o, err := c.options(t.Session)
	if err != nil {
		return nil, err
	}
	sc, err := replay.Cost(t, o)
	if err != nil {
		var mp *cache.MissingPriceError
		if errors.As(err, &mp) {
			return nil, &usageError{err}
		}
		return nil, err
	}
	return sc, nil
}

// check refuses, before any work, a session whose model the --prices file
// and the built-in table do not price (exit 2 naming the model).
func (c *costSetup) check(ss []*corpus.Session) error {
	if c.priceFile == "" {
		return nil
	}
	for _, s := range ss {
		for _, m := range cache.ModelsOf(s, c.model) {
			if _, ok := c.prices.Lookup(m); !ok {
				return &usageError{&cache.MissingPriceError{Model: m, File: c.priceFile}}
			}
		}
	}
	return nil
}
