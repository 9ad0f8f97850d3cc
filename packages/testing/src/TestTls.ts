/**
 * The test certificate HTTPS stand-ins serve with: a self-signed test CA (valid to 2126, its key
 * destroyed after signing) and a certificate it signed for `localhost` and `127.0.0.1`. A client
 * trusts the stand-in by adding `ca` to its trusted certificates, or a whole process by
 * `NODE_EXTRA_CA_CERTS=<caPath>`. For tests only: the key is public.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

// From src/ the files sit beside this module; from dist/ they ship under src/.
const locate = (name: string): string => {
  for (const relative of [`./standins/tls/${name}`, `../src/standins/tls/${name}`]) {
    const path = fileURLToPath(new URL(relative, import.meta.url))
    try {
      readFileSync(path)
      return path
    } catch {
      continue
    }
  }
  throw new Error(`@tender/testing: the test certificate file ${name} is missing`)
}

/** The test CA's certificate file, for `NODE_EXTRA_CA_CERTS`. @since 0.1.0 @category constants */
export const caPath: string = locate("ca.pem")

/** The test CA's certificate (PEM). @since 0.1.0 @category constants */
export const ca: string = readFileSync(caPath, "utf8")

/** The server certificate for `localhost` and `127.0.0.1` (PEM), signed by `ca`. @since 0.1.0 @category constants */
export const cert: string = readFileSync(locate("cert.pem"), "utf8")

/** The server certificate's private key (PEM). @since 0.1.0 @category constants */
export const key: string = readFileSync(locate("key.pem"), "utf8")
