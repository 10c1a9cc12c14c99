import { renderToReadableStream } from 'react-dom/server';

/**
 * The whole markup of a server rendering (entry-server.tsx), for a test that then hydrates it in the
 * same process. React DOM's server renderer leaves the context values of its last render set when it
 * ends (a server never renders on the client, so it does not set them back); one more rendering of
 * nothing switches them back to their defaults, as the browser would find them.
 */
export async function markupOf(rendered: { stream: ReadableStream<Uint8Array> }): Promise<string> {
  const markup = await new Response(rendered.stream).text();
  await new Response(await renderToReadableStream(<i />)).text();
  return markup;
}
