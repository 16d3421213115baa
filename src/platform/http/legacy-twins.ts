// The older route forms without the jurisdiction segment (spec: Versioning 5), added in one place: a
// route that declares `config.legacyTwin: true` is also served at its path without `/:jurisdiction`,
// marked deprecated, with the jurisdiction left out of its path parameters. The twin runs the same
// handler, so a handler of such a route reads `params.jurisdiction` as possibly absent (the services
// take `jurisdiction: string | undefined` and then look the batch up by token alone).
import Type, { type TObject } from 'typebox'
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'

type DeclaredRoute = RouteOptions & { routePath: string; path: string; prefix: string }

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Also serve this route at its path without `/:jurisdiction`, deprecated. */
    legacyTwin?: boolean
  }
}

const JURISDICTION_SEGMENT = '/:jurisdiction'

/**
 * Must be the first onRoute hook, so that it copies the route as declared: later hooks add to the
 * route's options (problem responses and security in the OpenAPI schema, compression and rate-limit
 * hooks), and the twin goes through every hook itself, as a route declared by hand would.
 *
 * The twin is registered with `after`, in the plugin that declares the route: once that plugin has
 * registered its own routes (or at its next awaited `register`). So a plugin's twins follow its own
 * routes, in their order, in the route table and in the OpenAPI document; a plugin whose twins must
 * come before some other routes puts its twinned routes in a plugin of their own.
 */
export function installLegacyTwins(app: FastifyInstance): void {
  app.addHook('onRoute', function (this: FastifyInstance, route) {
    // A GET route's HEAD route is Fastify's own; the twin of the GET gets its own HEAD route.
    if (!route.config?.legacyTwin || route.method === 'HEAD') return
    const twin = legacyTwinOf(route)
    this.after(() => {
      this.route(twin)
    })
  })
}

function legacyTwinOf(route: DeclaredRoute): RouteOptions {
  const { url, path: _path, prefix: _prefix, routePath: path, config, schema, ...declared } = route
  if (!path.includes(`${JURISDICTION_SEGMENT}/`))
    throw new Error(
      `Route ${route.method} ${url} declares config.legacyTwin but has no ${JURISDICTION_SEGMENT} segment`,
    )
  const { legacyTwin: _legacyTwin, ...twinConfig } = config ?? {}
  const { params, ...twinSchema }: FastifySchema = schema ?? {}
  const twinParams = params === undefined ? undefined : withoutJurisdiction(params as TObject, route)
  return {
    ...declared,
    url: path.replace(JURISDICTION_SEGMENT, ''),
    config: twinConfig,
    schema: { ...twinSchema, ...(twinParams ? { params: twinParams } : {}), deprecated: true },
  }
}

// One twin schema per declared one: routes sharing path parameters share them on their twins too, so
// each is compiled once, as when the twins were declared by hand.
const twinParams = new WeakMap<TObject, TObject | undefined>()

/** The path parameters without the jurisdiction; none at all when it was the only one. */
function withoutJurisdiction(params: TObject, route: DeclaredRoute): TObject | undefined {
  if (!twinParams.has(params)) twinParams.set(params, derive(params, route))
  return twinParams.get(params)
}

function derive(params: TObject, route: DeclaredRoute): TObject | undefined {
  const { jurisdiction, ...properties } = params.properties
  if (jurisdiction === undefined)
    throw new Error(`Route ${route.method} ${route.url} declares config.legacyTwin but no jurisdiction parameter`)
  if (Object.keys(properties).length === 0) return undefined
  const { type: _type, properties: _properties, required: _required, ...options } = params
  return Type.Object(properties, options)
}
