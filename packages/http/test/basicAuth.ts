/**
 * The Basic `Authorization` header of an API key pair (D2). Its own module, free of vitest, so
 * the crash fuzzer's command line (`npm run fuzz`) can use it as the tests do.
 */
export type Key = { readonly public: string; readonly secret: string }

export const basic = (key: Key) => "Basic " + Buffer.from(`${key.public}:${key.secret}`).toString("base64")
