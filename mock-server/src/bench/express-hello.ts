// `node express-hello.js <port>`: the reference floor, express 5's hello world as its README writes it.
import express from 'express';

const port = Number(process.argv[2]);
const app = express();
app.get('/', (_req, res) => {
  res.send('Hello World!');
});
app.listen(port, '127.0.0.1');
