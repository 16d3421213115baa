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

export function registerOperationalRoutes(
  app: FastifyInstance,
  deps: { db: Db; queueReady: () => Promise<boolean> },
): void {
  const exempt = { public: true, rateLimit: false } as const
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
      const healthy = database === 'ok' && queue === 'ok'
      return reply
        .code(healthy ? 200 : 503)
        .send({ status: healthy ? 'ok' : 'unavailable', checks: { database, queue } })
    },
  )

  app.get(
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
      const { kind } = request.params as { kind: string }
      if (!Object.hasOwn(problemTypes, kind)) throw new NotFoundError(`No problem type ${kind}.`)
      const problem = problemTypes[kind as ProblemKind]
      return { type: `/problems/${kind as ProblemKind}`, ...problem }
    },
  )
}
