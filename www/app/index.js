// Home: three lookups. Each form goes to its page with the value in the query.
import { boot } from './app.js';

await boot('home');
