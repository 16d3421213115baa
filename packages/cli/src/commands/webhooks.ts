// vetrs webhooks add|list|remove|rotate-secret|deliveries|redeliver|listen: the RTO's webhook
// endpoints, their delivery log, and a local receiver that prints verified deliveries (development).
import { createServer } from 'node:http'
import type { Command } from 'commander'
import { UsageError, verifyWebhook, type NewWebhookEndpoint, type Vetrs, type WebhookDelivery } from '@vetrs/client'
import { Context } from '../context.ts'

const ENDPOINT_COLUMNS = [
  'endpointId',
  'url',
  'enabled',
  'disabledReason',
  'eventTypes',
  'deliveredThrough',
  'failedAttempts',
]
type EventTypes = NonNullable<NewWebhookEndpoint['eventTypes']>
/** `--type batch.created,batch.submitted`: the au.gov.vetrs. prefix may be left out. */
const typesOf = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .filter(Boolean)
    .map((type) => (type.startsWith('au.gov.vetrs.') ? type : `au.gov.vetrs.${type}`)),
]

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description("the RTO's webhook endpoints and their deliveries")

  webhooks
    .command('add <url>')
    .description('register an endpoint; prints its signing secret, shown this once')
    .option('--type <types>', 'event types to deliver, comma-separated or repeated (default every type)', typesOf)
    .option('--description <text>', 'what the endpoint is for')
    .action(async (url: string, options: { type?: string[]; description?: string }, command: Command) => {
      const context = await Context.of(command)
      const created = await context.client().addWebhookEndpoint({
        url,
        ...(options.type ? { eventTypes: options.type as EventTypes } : {}),
        ...(options.description ? { description: options.description } : {}),
      })
      context.output.result(created, () => {
        context.output.say(`Registered webhook endpoint ${created.endpointId} for ${created.url}`)
        context.output.say(`Signing secret (shown this once, keep it): ${created.secret}`)
      })
    })

  webhooks
    .command('list')
    .description("the RTO's endpoints and their state")
    .action(async (_options, command: Command) => {
      const context = await Context.of(command)
      const endpoints = await context.client().webhookEndpoints()
      context.output.result(endpoints, () => {
        if (endpoints.length === 0) return context.output.say('No webhook endpoints.')
        context.output.table(
          endpoints.map((e) => ({ ...e, eventTypes: e.eventTypes.length === 0 ? '(all)' : e.eventTypes.join(',') })),
          ENDPOINT_COLUMNS,
        )
      })
    })

  webhooks
    .command('remove <endpointId>')
    .description('delete an endpoint with its delivery log')
    .action(async (endpointId: string, _options, command: Command) => {
      const context = await Context.of(command)
      await context.client().removeWebhookEndpoint(endpointId)
      context.output.result({ removed: endpointId }, () => context.output.say(`Removed webhook endpoint ${endpointId}`))
    })

  webhooks
    .command('rotate-secret <endpointId>')
    .description('a new signing secret; the previous one stays valid for a while (both sign meanwhile)')
    .action(async (endpointId: string, _options, command: Command) => {
      const context = await Context.of(command)
      const rotated = await context.client().rotateWebhookSecret(endpointId)
      context.output.result(rotated, () => {
        context.output.say(`New signing secret (shown this once, keep it): ${rotated.secret}`)
        context.output.say(`The previous secret stays valid until ${rotated.previousSecretValidUntil}`)
      })
    })

  webhooks
    .command('deliveries <endpointId>')
    .description("an endpoint's delivery attempts, newest first")
    .option('--limit <n>', 'at most this many (default 20)', (value) => Number.parseInt(value, 10), 20)
    .action(async (endpointId: string, options: { limit: number }, command: Command) => {
      const context = await Context.of(command)
      if (!Number.isInteger(options.limit) || options.limit < 1)
        throw new UsageError('--limit must be a whole number from 1')
      const attempts: WebhookDelivery[] = []
      for await (const attempt of context.client().webhookDeliveries(endpointId)) {
        attempts.push(attempt)
        if (attempts.length >= options.limit) break
      }
      context.output.result(attempts, () => {
        if (attempts.length === 0) return context.output.say('No delivery attempts.')
        context.output.table(attempts, [
          'deliveryId',
          'attemptedAt',
          'eventType',
          'eventSequence',
          'attempt',
          'succeeded',
          'statusCode',
          'latencyMs',
          'error',
        ])
      })
    })

  webhooks
    .command('redeliver <endpointId> <deliveryId>')
    .description('send the event of a logged delivery again')
    .action(async (endpointId: string, deliveryId: string, _options, command: Command) => {
      const context = await Context.of(command)
      await context.client().redeliverWebhook(endpointId, deliveryId)
      context.output.result({ redelivery: deliveryId }, () =>
        context.output.say(`The event of delivery ${deliveryId} will be sent again`),
      )
    })

  webhooks
    .command('listen')
    .description(
      'receive deliveries on 127.0.0.1 and print each verified event (development); without --secret, registers an endpoint for the session and removes it on exit',
    )
    .requiredOption('--port <n>', 'the local port', (value) => Number.parseInt(value, 10))
    .option('--secret <whsec>', "an existing endpoint's secret (or VETRS_WEBHOOK_SECRET): register nothing")
    .option('--type <types>', 'event types of the session endpoint, comma-separated or repeated', typesOf)
    .option('--count <n>', 'stop after this many verified deliveries', (value) => Number.parseInt(value, 10))
    .action(async (options: { port: number; secret?: string; type?: string[]; count?: number }, command: Command) => {
      const context = await Context.of(command)
      if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535)
        throw new UsageError('--port must be a port number, 1 to 65535')
      await listen(context, options)
    })
}

async function listen(
  context: Context,
  options: { port: number; secret?: string; type?: string[]; count?: number },
): Promise<void> {
  let secret = options.secret ?? process.env.VETRS_WEBHOOK_SECRET
  let registered: { client: Vetrs; endpointId: string } | undefined
  let received = 0
  const finished = Promise.withResolvers<void>()
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= 1024 * 1024) chunks.push(chunk)
    })
    request.on('end', () => {
      try {
        const event = verifyWebhook(Buffer.concat(chunks), request.headers, secret ?? '')
        response.writeHead(204).end()
        received++
        context.output.result(event, () =>
          context.output.say(
            `${event.time}  ${event.type}  ${event.subject}  (sequence ${event.sequence}, id ${event.id})`,
          ),
        )
        if (options.count !== undefined && received >= options.count) finished.resolve()
      } catch (error) {
        response.writeHead(400).end()
        context.output.warn(`Refused a delivery: ${(error as Error).message}`)
      }
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, '127.0.0.1', resolve)
  })
  const stop = () => finished.resolve()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    if (secret === undefined) {
      const client = context.client()
      const created = await client.addWebhookEndpoint({
        url: `http://127.0.0.1:${options.port}/`,
        description: 'vetrs webhooks listen (development session)',
        ...(options.type ? { eventTypes: options.type as EventTypes } : {}),
      })
      secret = created.secret
      registered = { client, endpointId: created.endpointId }
      context.output.warn(`Registered webhook endpoint ${created.endpointId} for this session`)
    }
    context.output.warn(`Listening on http://127.0.0.1:${options.port}/ (Ctrl-C stops)`)
    await finished.promise
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    if (registered) {
      await registered.client.removeWebhookEndpoint(registered.endpointId)
      context.output.warn(`Removed webhook endpoint ${registered.endpointId}`)
    }
  }
}
