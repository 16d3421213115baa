// Writes docs/business-rules.md from the rule modules' metadata: npm run docs:rules
import { writeFile } from 'node:fs/promises'
import { catalogueMarkdown } from '../src/modules/rule-catalogue/index.ts'

await writeFile(new URL('../docs/business-rules.md', import.meta.url), catalogueMarkdown())
console.log('docs/business-rules.md written')
