/** Empties the person store behind the gateway at `base`, then stores `count` persons p0, p1, ... */
export async function storePersons(base: string, count: number): Promise<void> {
  const cleared = await fetch(`${base}/persons`, { method: 'DELETE' });
  if (!cleared.ok) throw new Error(`clearing the persons failed: ${cleared.status}`);
  for (let i = 0; i < count; i++) {
    const person = { id: `p${i}`, familyName: `Family ${i}`, givenName: `Given ${i}` };
    const response = await fetch(`${base}/persons/${person.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(person),
    });
    if (!response.ok) throw new Error(`storing ${person.id} failed: ${response.status}`);
  }
}
