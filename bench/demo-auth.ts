// The bearer header of a demo client (client credentials against the service's own token endpoint),
// for the benchmarks that call the API as an SMS would.
export async function demoAuth(
  baseUrl: string,
  clientId = 'demo-rto-1',
  clientSecret = 'demo-secret-1',
): Promise<{ authorization: string }> {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  })
  if (!response.ok) throw new Error(`token for ${clientId}: ${response.status}`)
  return { authorization: `Bearer ${((await response.json()) as { access_token: string }).access_token}` }
}
