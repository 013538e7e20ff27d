// One vitest project per package; each package's vitest.config.ts merges vitest.shared.ts.
export default ["packages/*", "apps/*"]
