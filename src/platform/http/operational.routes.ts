// Liveness, readiness and the documentation of problem types (the targets of problem `type` URIs).
import Type from 'typebox'
import type { FastifyInstance } from 'fastify'
import { pingDatabase, type Db } from '../db/database.ts'
import { ProblemDetails, problemTypes, type ProblemKind } from './problem.ts'
import { StringEnum } from './types.ts'
import { NotFoundError } from '../../domain/errors.ts'

const Health = Type.Object({
  status: StringEnum(['ok', 'unavailable'] as const),
  checks: Type.Optional(Type.Record(Type.String(), Type.String())),
})

/** Longest wait for the replica's answer in /health/ready. */
const REPLICA_CHECK_MS = 500

export function registerOperationalRoutes(
  app: FastifyInstance,
  deps: {
    db: Db
    queueReady: () => Promise<boolean>
    /** With a read replica (DATABASE_READ_URL): resolves when it answers. */
    replica: (() => Promise<void>) | undefined
    /** Where `GET /` sends a browser: the console's landing page, or /docs when there is no console. */
    home: string
  },
): void {
  const exempt = { public: true, rateLimit: false } as const
  // The service root is what a browser (and a newcomer's first curl) asks for first: a 404 problem
  // there says nothing, so it sends them on. 302: where home is may change with the configuration.
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect(deps.home, 302),
  )
  app.get(
    '/health/live',
    { config: exempt, schema: { tags: ['Operations'], summary: 'The process is running', response: { 200: Health } } },
    async () => ({ status: 'ok' as const }),
  )

  app.get(
    '/health/ready',
    {
      config: exempt,
      schema: {
        tags: ['Operations'],
        summary: 'Database and queue are reachable',
        description:
          'checks.database and checks.queue decide the status. With a read replica, checks.replica says whether it answers; it does not make the process unready (every process shares the replica, so that would stop writes too), but the endpoints that read there answer 503 while it is unreachable.',
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const database = await pingDatabase(deps.db).then(
        () => 'ok',
        () => 'unreachable',
      )
      const queue = await deps.queueReady().then(
        (ready) => (ready ? 'ok' : 'unreachable'),
        () => 'unreachable',
      )
      // Bounded: a load balancer's check waits about a second (HAProxy's inter), and a replica that
      // does not answer must not make the check itself time out.
      const replica = deps.replica
        ? await Promise.race([
            deps.replica().then(
              () => 'ok',
              () => 'unreachable',
            ),
            new Promise<string>((resolve) => setTimeout(resolve, REPLICA_CHECK_MS, 'unreachable').unref()),
          ])
        : undefined
      const healthy = database === 'ok' && queue === 'ok'
      return reply.code(healthy ? 200 : 503).send({
        status: healthy ? 'ok' : 'unavailable',
        checks: { database, queue, ...(replica === undefined ? {} : { replica }) },
      })
    },
  )

  app.get<{ Params: { kind: string } }>(
    '/problems/:kind',
    {
      config: exempt,
      schema: {
        tags: ['Operations'],
        summary: 'What a problem type means',
        params: Type.Object({ kind: Type.String() }),
        response: {
          200: Type.Object({
            type: Type.String(),
            title: Type.String(),
            status: Type.Integer(),
            description: Type.String(),
          }),
          '4xx': ProblemDetails,
        },
      },
    },
    async (request) => {
      const { kind } = request.params
      if (!isProblemKind(kind)) throw new NotFoundError(`No problem type ${kind}.`)
      return { type: `/problems/${kind}`, ...problemTypes[kind] }
    },
  )
}

const isProblemKind = (kind: string): kind is ProblemKind => Object.hasOwn(problemTypes, kind)
