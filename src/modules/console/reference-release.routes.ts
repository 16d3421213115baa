// Operators load a release of a reference dataset from the console: upload the release file (the same
// CSV or TSV the admin CLI's `reference-data load` reads), see what it would create, update and
// end-date, then publish it. Publishing re-reads the file from the preview's form and is refused when
// the dataset changed after the preview was read, so what is published is what the operator saw.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { decodeUtf8 } from '../../platform/http/body-parsers.ts'
import type { Db } from '../../platform/db/database.ts'
import { NotFoundError } from '../../domain/errors.ts'
import {
  datasets,
  previewRelease,
  publishRelease,
  RELEASE_FILE_MAX_BYTES,
  ReleaseBasisChanged,
  ReleaseFileError,
} from '../reference-data/index.ts'
import type { ConsoleUser } from './console-people.ts'
import { renderPage } from './console.views.ts'
import { formRoute, frameFor, html, only, pageRoute, personOf } from './page-kit.ts'

type DatasetParams = { dataset: string }

/** Room for the form's other fields and its framing, beside the file (or its base64url copy). */
const FORM_ROOM = 65_536
const publishBodyBytes = Math.ceil((RELEASE_FILE_MAX_BYTES * 4) / 3) + FORM_ROOM

/**
 * The parser tells CSV from TSV by the file's name; a browser's form part keeps only the bytes here,
 * so a header line with a tab is read as TSV (a CSV header of these column names has none).
 */
function releaseFileName(text: string): string {
  const header = text.split(/\r?\n/).find((line) => line.trim() !== '' && !line.startsWith('#')) ?? ''
  return header.includes('\t') ? 'release.tsv' : 'release.csv'
}

export function referenceReleasePages(app: FastifyInstance, db: Db): void {
  const datasetPath = (name: string) => `/console/reference-data/${encodeURIComponent(name)}`

  const uploadPage = async (
    request: FastifyRequest<{ Params: DatasetParams }>,
    reply: FastifyReply,
    user: ConsoleUser,
    problems: string[] = [],
    status = 200,
  ) => {
    const dataset = datasetOf(request.params.dataset)
    const frame = frameFor(request, reply, user, `Load a release of ${dataset.title}`)
    return html(
      reply,
      renderPage(
        'reference-release',
        { ...frame, current: 'reference-data' },
        { dataset, problems, path: datasetPath(dataset.name), maxBytes: RELEASE_FILE_MAX_BYTES },
      ),
      status,
    )
  }

  const previewPage = async (
    request: FastifyRequest<{ Params: DatasetParams }>,
    reply: FastifyReply,
    user: ConsoleUser,
    text: string,
    changedSincePreview = false,
  ) => {
    const preview = await previewRelease(db, request.params.dataset, text, releaseFileName(text))
    const frame = frameFor(request, reply, user, `Preview a release of ${preview.dataset.title}`)
    return html(
      reply,
      renderPage(
        'reference-release-preview',
        { ...frame, current: 'reference-data' },
        {
          ...preview,
          changedSincePreview,
          path: datasetPath(preview.dataset.name),
          release: Buffer.from(text, 'utf8').toString('base64url'),
        },
      ),
      changedSincePreview ? 409 : 200,
    )
  }

  app.get<{ Params: DatasetParams }>(
    '/reference-data/:dataset/release',
    { ...pageRoute, preHandler: only.operators },
    async (request, reply) => {
      const operator = { user: personOf(request) }
      return uploadPage(request, reply, operator.user)
    },
  )

  app.post<{ Params: DatasetParams; Body: Record<string, unknown> }>(
    '/reference-data/:dataset/release',
    {
      ...formRoute,
      config: {
        ...formRoute.config,
        audit: 'reference.release.load',
        bodyLimits: {
          wireBodyBytes: RELEASE_FILE_MAX_BYTES + FORM_ROOM,
          decodedBodyBytes: RELEASE_FILE_MAX_BYTES + FORM_ROOM,
        },
      },
      bodyLimit: RELEASE_FILE_MAX_BYTES + FORM_ROOM + 1,
      preHandler: [app.csrfProtection, only.operators],
    },
    async (request, reply) => {
      const operator = { user: personOf(request) }
      const file = request.body?.release
      const bytes = file instanceof Buffer ? file : Buffer.alloc(0)
      if (bytes.length === 0) return uploadPage(request, reply, operator.user, ['Choose a release file.'], 400)
      if (bytes.length > RELEASE_FILE_MAX_BYTES)
        return uploadPage(
          request,
          reply,
          operator.user,
          [`The file has ${bytes.length} bytes; a release file has at most ${RELEASE_FILE_MAX_BYTES}.`],
          413,
        )
      const text = decodeUtf8(bytes)
      if (text === undefined)
        return uploadPage(request, reply, operator.user, ['The file is not UTF-8 text; save it as UTF-8.'], 400)
      try {
        return await previewPage(request, reply, operator.user, text)
      } catch (error) {
        if (error instanceof ReleaseFileError) return uploadPage(request, reply, operator.user, error.problems, 400)
        throw error
      }
    },
  )

  app.post<{ Params: DatasetParams; Body: Record<string, unknown> }>(
    '/reference-data/:dataset/release/publish',
    {
      ...formRoute,
      config: {
        ...formRoute.config,
        audit: 'reference.release.publish',
        bodyLimits: { wireBodyBytes: publishBodyBytes, decodedBodyBytes: publishBodyBytes },
      },
      bodyLimit: publishBodyBytes + 1,
      preHandler: [app.csrfProtection, only.operators],
    },
    async (request, reply) => {
      const operator = { user: personOf(request) }
      const body = request.body ?? {}
      const encoded = typeof body.release === 'string' ? body.release : ''
      const basis = Number(body.basis)
      const text = /^[A-Za-z0-9_-]+$/.test(encoded) ? decodeUtf8(Buffer.from(encoded, 'base64url')) : undefined
      if (text === undefined || !Number.isSafeInteger(basis) || basis < 0)
        return uploadPage(
          request,
          reply,
          operator.user,
          ['The preview’s form was not complete; upload the release file again.'],
          400,
        )
      const { dataset } = request.params
      try {
        const summary = await publishRelease(db, dataset, text, releaseFileName(text), basis)
        request.log.info({ ...summary, by: operator.user.subject }, 'console: reference data release published')
        request.session.set('flash', {
          kind: 'success',
          text:
            summary.sysEffectiveFrom === null
              ? `The release changed nothing: all ${summary.unchanged} codes of ${dataset} were already as it has them.`
              : `Published: ${summary.created} created, ${summary.updated} updated, ${summary.endDated} end-dated, ${summary.unchanged} unchanged. SMS clients receive the changes at their next synchronisation.`,
        })
        return reply.redirect(datasetPath(dataset), 303)
      } catch (error) {
        if (error instanceof ReleaseBasisChanged) return previewPage(request, reply, operator.user, text, true)
        if (error instanceof ReleaseFileError) return uploadPage(request, reply, operator.user, error.problems, 400)
        throw error
      }
    },
  )
}

function datasetOf(name: string) {
  const dataset = datasets.find((d) => d.name === name)
  if (!dataset) throw new NotFoundError(`No reference dataset ${name}.`)
  return dataset
}
