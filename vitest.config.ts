import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The CLI tests run the compiled bin: build first, so they test the current sources.
    globalSetup: ['tests/package/global-build.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
