#!/usr/bin/env node
// The compiled CLI lives in dist/ (built by `npm install` through the root `prepare` script).
import "../dist/cli.js"
