// Lint and format (docs/architecture.md, "Lint and format"). ESLint's and typescript-eslint's
// recommended rules with Effect's own dprint formatting rule, set as Effect's repository sets
// them (its eslint.config.mjs on the v3 line) but for the line width, which architecture.md
// explains; style is a command (`npm run lint`, `npm run lint:fix`) that .ci/run runs.
import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    // The generated client types are written by openapi-typescript (npm run openapi:types).
    ignores: ["**/node_modules/**", "**/dist/**", "**/build/**", "**/*.js", "**/*.mjs", "**/*.cjs", "packages/client/src/openapi.ts"]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      // Validation rules match control characters (NUL, C0) on purpose: that is what they refuse.
      "no-control-regex": "off",
      "object-shorthand": "error",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unsafe-function-type": "off",
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        caughtErrorsIgnorePattern: "^_",
        destructuredArrayIgnorePattern: "^_",
        ignoreRestSiblings: true
      }],
      "@typescript-eslint/no-namespace": "off",
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 160,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
)
